import Link from "next/link";
import { linkStyle, StatusPage } from "@/components/errors/status-page";

export default function Unauthorized() {
  return (
    <StatusPage status="401" title="Sign in to continue">
      <p>This page is only for signed-in members.</p>
      <Link href="/sign-in" style={linkStyle}>
        Sign in
      </Link>
    </StatusPage>
  );
}
