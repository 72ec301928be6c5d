import type { Metadata } from "next";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { getNotificationSettings } from "@/src/alerts/delivery/settings";
import { accountsDb } from "@/src/auth/tables";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { mailConfigured } from "@/src/mail/transport";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import { saveNotifications } from "./actions";

export const metadata: Metadata = { title: "Notifications · Faultline" };

/**
 * Account → Notifications: which alert emails this user gets. Every alert email links here
 * (its unsubscribe link). Plain HTML form posting to a server action.
 */
export default async function NotificationsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser();
  const { done, error } = await searchParams;
  const db = getDb();
  const settings = await getNotificationSettings(db, user.id);
  const projects = await accountsDb(db)
    .selectFrom("projects")
    .innerJoin("members", "members.organization_id", "projects.organization_id")
    .innerJoin("organizations", "organizations.id", "projects.organization_id")
    .select(["projects.id", "projects.name", "organizations.name as orgName"])
    .where("members.user_id", "=", user.id)
    .orderBy("organizations.name")
    .orderBy("projects.name")
    .execute();
  const home = `/${(await firstOrgSlugOf(db, user.id)) ?? ""}`;
  const chosen = new Set(settings.mode === "custom" ? settings.projects : []);
  const radio = "mr-2";

  return (
    <main className="mx-auto mt-[8vh] max-w-lg px-6">
      <p className="mb-6 text-xs font-semibold tracking-widest text-muted uppercase">Faultline</p>
      <div className="rounded-lg border border-line bg-surface p-6">
        <h1 className="mb-3 text-xl font-semibold">Alert emails</h1>
        <p className="mb-4 text-muted">
          Signed in as {user.email}. <Link href={home}>Back</Link>
        </p>
        {!mailConfigured() && (
          <p role="note" className="mb-4 rounded border border-line p-2 text-sm">
            This server has no mail server configured (FAULTLINE_SMTP_URL), so no email is sent yet.
            Alert emails wait and go out once it is.
          </p>
        )}
        {done && <p role="status">Saved.</p>}
        {error && <p role="alert">Choose one of the options.</p>}
        <form action={saveNotifications} className="grid gap-3">
          <fieldset className="grid gap-2">
            <legend className="mb-1 font-medium">Email me about</legend>
            <label>
              <input
                className={radio}
                type="radio"
                name="mode"
                value="all"
                defaultChecked={settings.mode === "all"}
              />
              Everything the alert rules send me
            </label>
            <label>
              <input
                className={radio}
                type="radio"
                name="mode"
                value="custom"
                defaultChecked={settings.mode === "custom"}
              />
              Only what I choose below
            </label>
            <div className="ml-6 grid gap-1">
              <label>
                <input
                  className={radio}
                  type="checkbox"
                  name="assigned"
                  defaultChecked={settings.mode !== "custom" || settings.assigned}
                />
                Issues assigned to me
              </label>
              {projects.length > 0 && <p className="m-0 text-sm text-muted">All new issues of:</p>}
              {projects.map((p) => (
                <label key={p.id}>
                  <input
                    className={radio}
                    type="checkbox"
                    name="project"
                    value={String(p.id)}
                    defaultChecked={chosen.has(Number(p.id))}
                  />
                  {p.name} <span className="text-muted">({p.orgName})</span>
                </label>
              ))}
            </div>
            <label>
              <input
                className={radio}
                type="radio"
                name="mode"
                value="none"
                defaultChecked={settings.mode === "none"}
              />
              Nothing (no alert email)
            </label>
          </fieldset>
          <Button variant="primary" className="justify-self-start px-4">
            Save
          </Button>
        </form>
      </div>
    </main>
  );
}
