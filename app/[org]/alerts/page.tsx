import type { Metadata } from "next";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { RelativeTime } from "@/components/ui/relative-time";
import { UptimeState } from "@/components/uptime/uptime-bits";
import { listOrgRules } from "@/src/alerts/rules/queries";
import { describeActions, describeConditions, describeFilters } from "@/src/alerts/rules/ui";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listOrgMonitors } from "@/src/monitors/queries";
import { listProjectSummaries } from "@/src/projects/queries";
import { listOrgUptimeMonitors } from "@/src/uptime/queries";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Alerts · Faultline" };

/** Every project's issue alert rules with their last firing; admins and owners edit them. */
export default async function AlertsPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const db = getDb();
  const [rows, projects, uptime, crons] = await Promise.all([
    listOrgRules(db, ctx.org.id),
    listProjectSummaries(db, ctx.org.id),
    listOrgUptimeMonitors(db, ctx.org.id),
    listOrgMonitors(db, ctx.org.id),
  ]);
  const writable = can(ctx.role, "alerts.write");
  const base = `/${ctx.org.slug}/alerts`;
  const now = Date.now();

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="alerts" />
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-lg font-semibold">Alert rules</h1>
        {writable && projects.length > 0 && (
          <form method="get" action={`${base}/new`} className="flex items-center gap-2 text-sm">
            <label className="flex items-center gap-1">
              <span className="text-xs text-muted">Project</span>
              <select name="project" className="rounded border border-line bg-canvas px-2 py-1">
                {projects.map((p) => (
                  <option key={p.slug} value={p.slug}>
                    {p.slug}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" className="rounded border border-line px-2 py-1 hover:bg-raised">
              New rule
            </button>
          </form>
        )}
      </div>
      {!writable && (
        <p className="mb-3 text-xs text-muted">
          You can read the rules; admins and owners change them.
        </p>
      )}
      {rows.length === 0 ? (
        <p className="text-muted">
          No alert rules. Nobody learns of new issues unless they watch the issues page.
        </p>
      ) : (
        <table aria-label="Alert rules" className="w-full border-collapse text-sm">
          <thead>
            <tr className="border-b border-line text-left text-xs text-muted uppercase">
              <th scope="col" className="py-1 pr-4">
                Rule
              </th>
              <th scope="col" className="py-1 pr-4">
                Project
              </th>
              <th scope="col" className="py-1 pr-4">
                When
              </th>
              <th scope="col" className="py-1 pr-4">
                Filters
              </th>
              <th scope="col" className="py-1 pr-4">
                Then
              </th>
              <th scope="col" className="py-1 pr-4">
                Last fired
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ rule, projectSlug, lastFired }) => (
              <tr key={rule.id} className="border-b border-line align-top">
                <td className="py-1 pr-4">
                  <Link href={`${base}/${projectSlug}/${rule.id}`}>{rule.name}</Link>
                  {rule.environment && (
                    <span className="ml-1 text-xs text-muted">({rule.environment})</span>
                  )}
                </td>
                <td className="py-1 pr-4">{projectSlug}</td>
                <td className="py-1 pr-4">{describeConditions(rule)}</td>
                <td className="py-1 pr-4">{describeFilters(rule) || "—"}</td>
                <td className="py-1 pr-4">{describeActions(rule)}</td>
                <td className="py-1 pr-4">
                  {lastFired ? <RelativeTime ms={lastFired} now={now} /> : "never"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2 className="mt-6 mb-2 font-semibold">Monitors</h2>
      {uptime.length + crons.length === 0 ? (
        <p className="text-muted">
          No monitors. <Link href={`/${ctx.org.slug}/uptime`}>Uptime</Link> checks a URL;{" "}
          <Link href={`/${ctx.org.slug}/crons`}>Crons</Link> watch scheduled jobs.
        </p>
      ) : (
        <table aria-label="Monitors" className="w-full border-collapse text-sm" data-alert-monitors>
          <thead>
            <tr className="border-b border-line text-left text-xs text-muted uppercase">
              <th scope="col" className="py-1 pr-4">
                Monitor
              </th>
              <th scope="col" className="py-1 pr-4">
                Kind
              </th>
              <th scope="col" className="py-1 pr-4">
                State
              </th>
              <th scope="col" className="py-1 pr-4">
                Project
              </th>
              <th scope="col" className="py-1 pr-4">
                Owner
              </th>
              <th scope="col" className="py-1 pr-4">
                Last check
              </th>
            </tr>
          </thead>
          <tbody>
            {uptime.map((m) => (
              <tr key={`u${m.id}`} className="border-b border-line align-top">
                <td className="py-1 pr-4">
                  <Link href={`/${ctx.org.slug}/uptime/${m.id}`}>{m.name}</Link>
                </td>
                <td className="py-1 pr-4">uptime</td>
                <td className="py-1 pr-4">
                  <UptimeState state={m.state} status={m.status} />
                </td>
                <td className="py-1 pr-4">{m.projectSlug}</td>
                <td className="py-1 pr-4">{m.owner ?? "—"}</td>
                <td className="py-1 pr-4">
                  {m.last_check_at === null ? (
                    "never"
                  ) : (
                    <RelativeTime ms={Number(m.last_check_at)} now={now} />
                  )}
                </td>
              </tr>
            ))}
            {crons.map((m) => (
              <tr key={`c${m.id}`} className="border-b border-line align-top">
                <td className="py-1 pr-4">
                  <Link href={`/${ctx.org.slug}/crons/${encodeURIComponent(m.slug)}`}>
                    {m.slug}
                  </Link>
                </td>
                <td className="py-1 pr-4">cron</td>
                <td className="py-1 pr-4">
                  {Number(m.muted) === 1 ? (
                    <Badge>muted</Badge>
                  ) : m.alert_state === "alerting" ? (
                    <Badge tone="danger">alerting</Badge>
                  ) : (
                    <Badge tone="ok">ok</Badge>
                  )}
                </td>
                <td className="py-1 pr-4">{m.projectSlug}</td>
                <td className="py-1 pr-4">—</td>
                <td className="py-1 pr-4">
                  {m.last_checkin === null ? (
                    "never"
                  ) : (
                    <RelativeTime ms={Number(m.last_checkin)} now={now} />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
