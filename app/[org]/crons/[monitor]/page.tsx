import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { CheckInHistory } from "@/components/crons/check-in-history";
import { MonitorStatus, Timeline } from "@/components/crons/monitor-bits";
import { CodeBlock } from "@/components/ui/code-block";
import { RelativeTime } from "@/components/ui/relative-time";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { monitorPageData, monitorSnippets } from "@/src/monitors/page-data";
import { publicBaseUrl } from "@/src/projects/base-url";
import { OrgNav, page } from "../../org-nav";
import { deleteMonitorAction, muteMonitor, unmuteMonitor } from "../actions";

export const metadata: Metadata = { title: "Cron monitor · Faultline" };

const button = "rounded border border-line px-2 py-0.5 hover:bg-raised";

/** One cron monitor: status, schedule, recent runs, check-in history, setup snippets. */
export default async function MonitorPage({
  params,
}: {
  params: Promise<{ org: string; monitor: string }>;
}) {
  const { org, monitor: rawSlug } = await params;
  const ctx = await withOrg(org, { need: "org.read" });
  const slug = decodeURIComponent(rawSlug);
  const data = await monitorPageData(getDb(), ctx.org, slug, publicBaseUrl(await headers()));
  if (!data) notFound();
  const { monitor: m, row } = data;
  const now = Date.now();
  const mayEdit = can(ctx.role, "projects.write");
  const schedule =
    row.schedule_type === "interval"
      ? `{ type: "interval", value: ${Number(row.schedule)}, unit: "${row.schedule_unit}" }`
      : `{ type: "crontab", value: ${JSON.stringify(row.schedule ?? "0 * * * *")} }${row.timezone ? `,\n  timezone: ${JSON.stringify(row.timezone)}` : ""}`;
  const snippets = data.dsn ? monitorSnippets(m.slug, data.dsn, schedule) : null;

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="crons" />
      <p className="mb-1 text-xs">
        <Link href={`/${ctx.org.slug}/crons`}>← Crons</Link>
      </p>
      <div className="mb-3 flex flex-wrap items-center gap-3">
        <h1 className="break-all text-lg font-semibold" data-monitor-title>
          {m.slug}
        </h1>
        <MonitorStatus status={m.status} />
        {mayEdit && (
          <div className="ml-auto flex gap-2 text-sm">
            <form action={m.muted ? unmuteMonitor : muteMonitor}>
              <input type="hidden" name="org" value={ctx.org.slug} />
              <input type="hidden" name="monitor" value={m.slug} />
              <button type="submit" className={button}>
                {m.muted ? "Unmute" : "Mute"}
              </button>
            </form>
            <form action={deleteMonitorAction}>
              <input type="hidden" name="org" value={ctx.org.slug} />
              <input type="hidden" name="monitor" value={m.slug} />
              <button type="submit" className={`${button} text-danger`}>
                Delete
              </button>
            </form>
          </div>
        )}
      </div>
      <dl className="mb-4 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1 text-sm">
        <dt className="text-muted">Project</dt>
        <dd>{m.projectSlug}</dd>
        <dt className="text-muted">Schedule</dt>
        <dd data-schedule>{m.schedule}</dd>
        <dt className="text-muted">Margin / max runtime</dt>
        <dd>
          {row.checkin_margin ?? 1} min / {row.max_runtime ?? 30} min
        </dd>
        <dt className="text-muted">Last check-in</dt>
        <dd>{m.lastCheckIn ? <RelativeTime ms={m.lastCheckIn} now={now} /> : "–"}</dd>
        <dt className="text-muted">Next check-in</dt>
        <dd>{m.nextCheckIn ? <RelativeTime ms={m.nextCheckIn} now={now} /> : "–"}</dd>
        <dt className="text-muted">Last runs</dt>
        <dd>
          <Timeline ticks={m.ticks} />
        </dd>
      </dl>

      <h2 className="mb-1 text-base font-semibold">Check-ins</h2>
      <Suspense fallback={<p className="mb-4 text-muted">Loading check-ins…</p>}>
        <CheckInHistory orgSlug={ctx.org.slug} monitorSlug={m.slug} />
      </Suspense>

      <h2 className="mb-1 text-base font-semibold">Set up</h2>
      {snippets ? (
        <div className="grid max-w-3xl gap-3">
          <div>
            <p className="mb-1 text-sm text-muted">
              Wrap the job (<code>Sentry.withMonitor</code>): it checks in when the job starts and
              ends.
            </p>
            <CodeBlock label="withMonitor snippet" code={snippets.withMonitor} />
          </div>
          <div>
            <p className="mb-1 text-sm text-muted">
              Or check in yourself (<code>captureCheckIn</code>):
            </p>
            <CodeBlock label="captureCheckIn snippet" code={snippets.captureCheckIn} />
          </div>
          <div>
            <p className="mb-1 text-sm text-muted">
              Without an SDK, a plain curl of a check-in envelope:
            </p>
            <CodeBlock label="curl snippet" code={snippets.curl} />
          </div>
        </div>
      ) : (
        <p className="text-muted">This monitor's project has no enabled DSN key.</p>
      )}
    </main>
  );
}
