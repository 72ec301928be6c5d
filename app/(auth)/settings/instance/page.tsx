import type { Metadata } from "next";
import Link from "next/link";
import { forbidden } from "next/navigation";
import { Button } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { isInstanceAdmin, orgCreationPolicy } from "@/src/instance/policy";
import { listInstanceAudit, listInstanceOrgs, listInstanceUsers } from "@/src/instance/queries";
import { addAdmin, removeAdmin, setPolicy } from "./actions";

export const metadata: Metadata = { title: "Instance · Faultline" };

const DONE: Record<string, string> = {
  policy: "Saved who may create organizations.",
  admin_added: "Added the instance administrator.",
  admin_removed: "Removed the instance administrator.",
};
const ERRORS: Record<string, string> = {
  policy: "Choose who may create organizations.",
  email: "Enter a valid email address.",
  unknown_user: "No user signs in with that email address.",
  last_admin: "The last instance administrator cannot be removed; name another first.",
  user: "Choose a user.",
  form: "The form was refused: it sent a field more than once.",
};

const cell = "border-b border-line px-2 py-1 text-left align-top";

/** For instance administrators: who may create organizations, the administrators, and activity. */
export default async function InstancePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser();
  const db = getDb();
  if (!(await isInstanceAdmin(db, user.id))) forbidden();
  const [policy, orgs, users, audit, { done, error }] = await Promise.all([
    orgCreationPolicy(db),
    listInstanceOrgs(db),
    listInstanceUsers(db),
    listInstanceAudit(db),
    searchParams,
  ]);
  const now = Date.now();
  return (
    <main className="mx-auto max-w-5xl px-6 py-4">
      <p className="mb-2 text-sm">
        <Link href="/">← Faultline</Link>
      </p>
      <h1 className="mb-3 text-lg font-semibold">Instance</h1>
      {typeof done === "string" && DONE[done] && (
        <p role="status" className="mb-3 text-ok">
          {DONE[done]}
        </p>
      )}
      {typeof error === "string" && (
        <p role="alert" className="mb-3 text-danger">
          {ERRORS[error] ?? "Check the form and try again."}
        </p>
      )}
      <section aria-labelledby="policy" className="mb-6">
        <h2 id="policy" className="mb-2 font-semibold">
          Who may create organizations
        </h2>
        <form action={setPolicy} className="flex flex-wrap items-center gap-4">
          <label className="flex items-center gap-1">
            <input type="radio" name="policy" value="admins" defaultChecked={policy === "admins"} />
            Instance administrators only
          </label>
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name="policy"
              value="everyone"
              defaultChecked={policy === "everyone"}
            />
            Any signed-in user
          </label>
          <Button type="submit">Save</Button>
        </form>
      </section>
      <section aria-labelledby="orgs" className="mb-6">
        <h2 id="orgs" className="mb-2 font-semibold">
          Organizations
        </h2>
        <table className="w-full text-sm">
          <thead>
            <tr>
              <th className={cell}>Name</th>
              <th className={cell}>Address</th>
              <th className={cell}>Members</th>
              <th className={cell}>Projects</th>
              <th className={cell}>Created</th>
              <th className={cell}>Last event</th>
            </tr>
          </thead>
          <tbody>
            {orgs.map((o) => (
              <tr key={o.id}>
                <td className={cell}>
                  {o.name}
                  {o.status === "deleting" && (
                    <span className="ml-2 text-danger">(being deleted)</span>
                  )}
                </td>
                <td className={cell}>/{o.slug}</td>
                <td className={cell}>{o.members}</td>
                <td className={cell}>{o.projects}</td>
                <td className={cell}>
                  <RelativeTime ms={o.createdAt} now={now} />
                </td>
                <td className={cell}>
                  {o.lastEvent === null ? "never" : <RelativeTime ms={o.lastEvent} now={now} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="users">
        <h2 id="users" className="mb-2 font-semibold">
          Users
        </h2>
        <table className="mb-3 w-full text-sm">
          <thead>
            <tr>
              <th className={cell}>Email</th>
              <th className={cell}>Name</th>
              <th className={cell}>Organizations</th>
              <th className={cell}>Last active</th>
              <th className={cell}>Instance administrator</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id}>
                <td className={cell}>{u.email}</td>
                <td className={cell}>{u.name}</td>
                <td className={cell}>{u.organizations}</td>
                <td className={cell}>
                  {u.lastSeen === null ? "never" : <RelativeTime ms={u.lastSeen} now={now} />}
                </td>
                <td className={cell}>
                  {u.admin ? (
                    <form action={removeAdmin} className="flex items-center gap-2">
                      <input type="hidden" name="userId" value={u.id} />
                      yes
                      <Button type="submit" aria-label={`Remove ${u.email} as administrator`}>
                        Remove
                      </Button>
                    </form>
                  ) : (
                    "no"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form action={addAdmin} className="flex flex-wrap items-end gap-2">
          <label className="grid gap-1">
            <span className="font-medium">Name an administrator (email)</span>
            <input
              name="email"
              type="email"
              required
              className="rounded border border-line bg-canvas px-2 py-1"
            />
          </label>
          <Button type="submit">Add administrator</Button>
        </form>
      </section>
      <section aria-labelledby="audit" className="mt-6">
        <h2 id="audit" className="mb-2 font-semibold">
          Instance audit log
        </h2>
        {audit.length === 0 ? (
          <p className="text-muted">Nothing yet.</p>
        ) : (
          <ul className="text-sm">
            {audit.map((a) => (
              <li key={a.id}>
                <RelativeTime ms={a.created_at} now={now} />: {a.actor_label}{" "}
                {a.action === "org.delete" ? "deleted the organization" : a.action} {a.target}
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
