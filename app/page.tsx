import { redirect } from "next/navigation";
import { StatusPage } from "@/components/errors/status-page";
import { currentUser } from "@/src/auth/session";
import { needsSetup } from "@/src/auth/setup";
import { getDb } from "@/src/db/connection";
import { firstOrgSlugOf } from "@/src/orgs/queries";

/** The front door: first run → setup; signed out → sign in; otherwise your organization. */
export default async function Home() {
  const db = getDb();
  if (await needsSetup(db)) redirect("/setup");
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  const slug = await firstOrgSlugOf(db, user.id);
  if (slug) redirect(`/${slug}/issues`);
  return (
    <StatusPage title="No organization yet">
      <p>
        You are signed in as {user.email} but belong to no organization. Ask an admin to add you.
      </p>
    </StatusPage>
  );
}
