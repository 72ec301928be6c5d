import Link from "next/link";
import { linkStyle, StatusPage } from "@/components/errors/status-page";

export default function NotFound() {
  return (
    <StatusPage status="404" title="Page not found">
      <p>There is nothing at this address, or you do not have access to it.</p>
      <Link href="/" style={linkStyle}>
        Go to the start page
      </Link>
    </StatusPage>
  );
}
