import { cookies } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { StatusPage } from "@/components/errors/status-page";
import { currentUser } from "@/src/auth/session";
import { needsSetup } from "@/src/auth/setup";
import { getDb } from "@/src/db/connection";
import { LAST_ORG_COOKIE } from "@/src/orgs/last-org";
import { findMembership, firstOrgSlugOf } from "@/src/orgs/queries";
import { isOrgSlug } from "@/src/orgs/slug";

/**
 * The front door: first run → setup; signed out → sign in; otherwise the organization opened
 * last (if the user still belongs to it), else the oldest membership.
 */
export default async function Home() {
  const db = getDb();
  if (await needsSetup(db)) redirect("/setup");
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  const last = (await cookies()).get(LAST_ORG_COOKIE)?.value ?? "";
  if (isOrgSlug(last) && (await findMembership(db, last, user.id))) redirect(`/${last}/issues`);
  const slug = await firstOrgSlugOf(db, user.id);
  if (slug) redirect(`/${slug}/issues`);
  return (
    <StatusPage title="No organization yet">
      <p>
        You are signed in as {user.email} but belong to no organization. Ask an admin to add you, or{" "}
        <Link href="/organizations/new">create an organization</Link>.
      </p>
    </StatusPage>
  );
}
