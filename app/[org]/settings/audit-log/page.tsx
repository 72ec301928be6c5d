import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { RelativeTime } from "@/components/ui/relative-time";
import { auditQuerySchema, describeEntry, listAuditLog } from "@/src/audit/queries";
import { AUDIT_ACTIONS } from "@/src/audit/record";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { OrgNav, page } from "../../org-nav";

export const metadata: Metadata = { title: "Audit log · Faultline" };

type SearchParams = Record<string, string | string[] | undefined>;

/** Who did what in the organization, newest first: admins and owners only. */
export default async function AuditLogPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.write" });
  const raw = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
  const q = auditQuerySchema.safeParse({
    event: one(raw.event),
    cursor: one(raw.cursor),
    per_page: 50,
  });
  if (!q.success) notFound();
  const { rows, next } = await listAuditLog(getDb(), ctx.org.id, q.data);
  const base = `/${ctx.org.slug}/settings/audit-log`;
  const now = Date.now();

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="audit" />
      <h1 className="mb-1 text-lg font-semibold">Audit log</h1>
      <p className="mb-3 text-xs text-muted">
        Changes to members, DSN keys, projects and their settings, tokens, and failed sign-ins to
        members' accounts. Also at <code>GET /api/0/organizations/{ctx.org.slug}/audit-logs/</code>.
      </p>
      <form method="get" action={base} className="mb-3 flex items-end gap-2 text-sm">
        <label className="grid gap-0.5">
          <span className="text-xs text-muted">Action</span>
          <select
            name="event"
            defaultValue={q.data.event ?? ""}
            className="rounded border border-line bg-canvas px-2 py-1"
          >
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="rounded border border-line px-2 py-1 hover:bg-raised">
          Show
        </button>
      </form>
      {rows.length === 0 ? (
        <p className="text-muted">No entries{q.data.event ? ` for ${q.data.event}` : ""} yet.</p>
      ) : (
        <table aria-label="Audit log" className="w-full border-collapse text-sm">
          <thead>
            <tr className="border-b border-line text-left text-xs text-muted uppercase">
              <th scope="col" className="py-1 pr-4">
                When
              </th>
              <th scope="col" className="py-1 pr-4">
                Who
              </th>
              <th scope="col" className="py-1 pr-4">
                What
              </th>
              <th scope="col" className="py-1 pr-4">
                Action
              </th>
              <th scope="col" className="py-1">
                Address
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} className="border-b border-line align-top [&>td]:py-1.5 [&>td]:pr-4">
                <td className="whitespace-nowrap">
                  <RelativeTime ms={r.createdAt} now={now} />
                </td>
                <td className="break-all">{r.actorLabel}</td>
                <td className="break-words">{describeEntry(r)}</td>
                <td>
                  <code className="text-xs">{r.action}</code>
                </td>
                <td className="font-mono text-xs">{r.ipAddress ?? "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next !== null && (
        <p className="mt-3">
          <Link
            href={`${base}?${new URLSearchParams({
              ...(q.data.event ? { event: q.data.event } : {}),
              cursor: String(next),
            }).toString()}`}
          >
            Older entries →
          </Link>
        </p>
      )}
    </main>
  );
}
