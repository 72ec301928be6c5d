import Link from "next/link";
import { MonitorStatus, Timeline } from "@/components/crons/monitor-bits";
import { CodeBlock } from "@/components/ui/code-block";
import { RelativeTime } from "@/components/ui/relative-time";
import { getDb } from "@/src/db/connection";
import { monitorOverviews } from "@/src/monitors/overview";
import { findOrgProjects } from "@/src/projects/org-projects";
import { findSetupDsn } from "@/src/projects/queries";

/**
 * The crons list's table, an async server component so the page streams it behind Suspense:
 * each monitor's schedule in words, status, last and next check-in and its last runs; with no
 * monitor yet, the setup that creates one, with the first project's DSN.
 */
export async function MonitorTable({
  org,
  baseUrl,
}: {
  org: { id: number; slug: string };
  baseUrl: string;
}) {
  const db = getDb();
  const monitors = await monitorOverviews(db, org.id);
  const now = Date.now();
  const base = `/${org.slug}/crons`;
  let dsn: string | null = null;
  if (monitors.length === 0) {
    const first = (await findOrgProjects(db, org.slug))?.projects[0];
    if (first) dsn = await findSetupDsn(db, first.id, baseUrl);
  }

  return monitors.length === 0 ? (
    <section
      aria-labelledby="no-monitors"
      className="max-w-2xl rounded border border-line bg-surface p-4"
    >
      <h2 id="no-monitors" className="mb-1 text-base font-semibold">
        No cron monitors yet
      </h2>
      <p className="mb-2 text-muted">
        A monitor appears with its first check-in. Wrap the job in <code>Sentry.withMonitor</code>{" "}
        with its schedule, and a run that does not happen in time shows up as missed.
      </p>
      {dsn ? (
        <CodeBlock
          label="snippet"
          code={`import * as Sentry from "@sentry/node";\n\nSentry.init({ dsn: "${dsn}" });\n\nawait Sentry.withMonitor("nightly-report", () => runReport(), {\n  schedule: { type: "crontab", value: "0 2 * * *" },\n  timezone: "Europe/Berlin",\n  checkinMargin: 5,\n  maxRuntime: 30,\n});`}
        />
      ) : (
        <p className="text-muted">This organization has no project with an enabled DSN key yet.</p>
      )}
    </section>
  ) : (
    <table aria-label="Cron monitors" className="w-full border-collapse text-sm">
      <thead>
        <tr className="border-b border-line text-left text-xs text-muted uppercase">
          <th scope="col" className="py-1 pr-4">
            Monitor
          </th>
          <th scope="col" className="py-1 pr-4">
            Schedule
          </th>
          <th scope="col" className="py-1 pr-4">
            Status
          </th>
          <th scope="col" className="py-1 pr-4">
            Last check-in
          </th>
          <th scope="col" className="py-1 pr-4">
            Next check-in
          </th>
          <th scope="col" className="py-1">
            Last runs
          </th>
        </tr>
      </thead>
      <tbody>
        {monitors.map((m) => (
          <tr
            key={m.id}
            data-monitor={m.slug}
            className="border-b border-line align-middle [&>td]:py-1.5 [&>td]:pr-4"
          >
            <td>
              <Link
                href={`${base}/${encodeURIComponent(m.slug)}`}
                className="break-all font-medium"
              >
                {m.slug}
              </Link>
              <div className="text-xs text-muted">{m.projectSlug}</div>
            </td>
            <td data-schedule>{m.schedule}</td>
            <td>
              <MonitorStatus status={m.status} />
            </td>
            <td className="whitespace-nowrap">
              {m.lastCheckIn ? <RelativeTime ms={m.lastCheckIn} now={now} /> : "–"}
            </td>
            <td className="whitespace-nowrap">
              {m.nextCheckIn ? <RelativeTime ms={m.nextCheckIn} now={now} /> : "–"}
            </td>
            <td>
              <Timeline ticks={m.ticks} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
