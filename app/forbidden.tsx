import Link from "next/link";
import { linkStyle, StatusPage } from "@/components/errors/status-page";

export default function Forbidden() {
  return (
    <StatusPage status="403" title="Not allowed">
      <p>Your role in this organization does not allow this. An owner or admin can change it.</p>
      <Link href="/" style={linkStyle}>
        Go to the start page
      </Link>
    </StatusPage>
  );
}
