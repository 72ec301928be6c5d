import type { Metadata } from "next";
import Link from "next/link";
import { ActionForm } from "@/components/projects/action-form";
import { RelativeTime } from "@/components/ui/relative-time";
import { formatShare, UptimeState } from "@/components/uptime/uptime-bits";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listProjectSummaries } from "@/src/projects/queries";
import { listOrgUptimeMonitors, uptimeShare } from "@/src/uptime/queries";
import { OrgNav, page } from "../org-nav";
import { createUptimeMonitorAction } from "./actions";

export const metadata: Metadata = { title: "Uptime · Faultline" };

const input = "rounded border border-line bg-surface px-2 py-1 text-sm";

/** Uptime monitors: each one's state and last day's uptime; admins add monitors here. */
export default async function UptimePage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const db = getDb();
  const monitors = await listOrgUptimeMonitors(db, ctx.org.id);
  const now = Date.now();
  const shares = await Promise.all(monitors.map((m) => uptimeShare(db, m.id, now - 86_400_000)));
  const mayEdit = can(ctx.role, "alerts.write");
  const projects = mayEdit ? await listProjectSummaries(db, ctx.org.id) : [];
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="uptime" />
      <div className="mb-3 flex items-baseline justify-between">
        <h1 className="text-lg font-semibold">Uptime</h1>
        <Link href={`/${ctx.org.slug}/uptime/status-page`} className="text-sm">
          Status page
        </Link>
      </div>
      {monitors.length === 0 ? (
        <p className="mb-4 text-muted">
          No uptime monitors yet. A monitor requests a URL on an interval and opens an issue when it
          is down.
        </p>
      ) : (
        <table className="mb-6 w-full text-left text-sm" data-uptime-table>
          <thead className="text-muted">
            <tr>
              <th className="py-1 pr-3 font-medium">Monitor</th>
              <th className="py-1 pr-3 font-medium">State</th>
              <th className="py-1 pr-3 font-medium">Uptime (24 h)</th>
              <th className="py-1 pr-3 font-medium">Interval</th>
              <th className="py-1 pr-3 font-medium">Last check</th>
              <th className="py-1 pr-3 font-medium">Project</th>
            </tr>
          </thead>
          <tbody>
            {monitors.map((m, i) => (
              <tr key={m.id} className="border-t border-line">
                <td className="py-1 pr-3">
                  <Link href={`/${ctx.org.slug}/uptime/${m.id}`}>{m.name}</Link>
                  <div className="break-all text-xs text-muted">
                    {m.kind === "heartbeat" ? "heartbeat" : `${m.method} ${m.url}`}
                  </div>
                </td>
                <td className="py-1 pr-3">
                  <UptimeState state={m.state} status={m.status} />
                </td>
                <td className="py-1 pr-3 tabular-nums">{formatShare(shares[i] ?? null)}</td>
                <td className="py-1 pr-3 tabular-nums">{Number(m.interval_seconds)} s</td>
                <td className="py-1 pr-3">
                  {m.last_check_at === null ? (
                    "–"
                  ) : (
                    <RelativeTime ms={Number(m.last_check_at)} now={now} />
                  )}
                </td>
                <td className="py-1 pr-3">{m.projectSlug}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {mayEdit && projects.length > 0 && (
        <section aria-labelledby="new-uptime">
          <h2 id="new-uptime" className="mb-2 font-semibold">
            New monitor
          </h2>
          <ActionForm
            action={createUptimeMonitorAction}
            fields={{ org: ctx.org.slug }}
            submitLabel="Create monitor"
            variant="primary"
          >
            <label className="flex flex-col text-xs">
              Project
              <select name="project" className={input}>
                {projects.map((p) => (
                  <option key={p.slug} value={p.slug}>
                    {p.slug}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col text-xs">
              Name
              <input name="name" required maxLength={128} className={input} />
            </label>
            <label className="flex flex-col text-xs">
              Kind
              <select name="kind" className={input}>
                <option value="http">HTTP check</option>
                <option value="heartbeat">Heartbeat (the job pings Faultline)</option>
              </select>
            </label>
            <label className="flex flex-col text-xs">
              URL (HTTP checks)
              <input name="url" type="url" className={`${input} w-80`} />
            </label>
            <label className="flex flex-col text-xs">
              Method
              <select name="method" className={input}>
                {["GET", "HEAD", "POST"].map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </label>
            <label className="flex flex-col text-xs">
              Interval (s)
              <input
                name="intervalSeconds"
                type="number"
                min={30}
                max={3600}
                defaultValue={60}
                className={`${input} w-24`}
              />
            </label>
            <label className="flex flex-col text-xs">
              Timeout (ms)
              <input
                name="timeoutMs"
                type="number"
                min={1000}
                max={30000}
                defaultValue={10000}
                className={`${input} w-24`}
              />
            </label>
            <label className="flex flex-col text-xs">
              Body must contain
              <input name="bodyContains" className={input} />
            </label>
          </ActionForm>
        </section>
      )}
    </main>
  );
}
