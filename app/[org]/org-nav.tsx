import Link from "next/link";
import type { CSSProperties } from "react";
import { signOut } from "@/app/(auth)/sign-in/actions";
import type { OrgContext } from "@/src/auth/with-org";

/** The header of an organization's pages: where you are, who you are, a way out. */
export function OrgNav({ ctx }: { ctx: OrgContext }) {
  const base = `/${ctx.org.slug}`;
  return (
    <header style={bar}>
      <nav aria-label="Organization">
        <strong>{ctx.org.name}</strong> · <Link href={base}>Projects</Link> ·{" "}
        <Link href={`${base}/settings/members`}>Members</Link>
      </nav>
      <form action={signOut} style={{ display: "flex", gap: "0.5rem", alignItems: "center" }}>
        <span style={{ color: "GrayText" }}>
          {ctx.user.email} ({ctx.role})
        </span>
        <Link href="/account/password">Change password</Link>
        <button type="submit">Sign out</button>
      </form>
    </header>
  );
}

export const page: CSSProperties = {
  fontFamily: "system-ui, sans-serif",
  lineHeight: 1.5,
  maxWidth: "56rem",
  margin: "0 auto",
  padding: "1rem 1.5rem",
};

const bar: CSSProperties = {
  display: "flex",
  justifyContent: "space-between",
  alignItems: "center",
  gap: "1rem",
  flexWrap: "wrap",
  borderBottom: "1px solid GrayText",
  paddingBottom: "0.5rem",
};
