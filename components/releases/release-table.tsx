import Link from "next/link";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { RelativeTime } from "@/components/ui/relative-time";
import { Sparkline } from "@/components/ui/sparkline";
import { getDb } from "@/src/db/connection";
import { crashFreeRate, listReleases } from "@/src/releases/list";
import { rangeLabel, windowOf } from "@/src/releases/page-params";
import { hrefWithFilters, type PageFilters } from "@/src/ui/page-filters";
import { percent } from "./range-filters";
import { SetupHint } from "./setup-hint";

export const releaseSnippet = (dsn: string) =>
  `import * as Sentry from "@sentry/node";\n\nSentry.init({\n  dsn: "${dsn}",\n  // Names the release; the SDK then sends a session per run (release health).\n  release: "my-app@1.0.0",\n  environment: "production",\n});`;

/** The releases list: one row per version, its figures as data attributes for tests. */
export async function ReleaseTable({
  orgId,
  orgSlug,
  filters,
}: {
  orgId: number;
  orgSlug: string;
  filters: PageFilters;
}) {
  const now = Date.now();
  const window = windowOf(filters);
  const label = rangeLabel(filters);
  const rows = await listReleases(
    getDb(),
    { orgId, projectIds: filters.projectIds, environment: filters.environment },
    window,
  );
  if (rows.length === 0)
    return (
      <SetupHint orgId={orgId} title="No releases yet" snippet={releaseSnippet}>
        Releases appear when an SDK sends events or sessions with a <code>release</code> option set.
        Server SDKs send one session per process or request; browser SDKs one per page load — that
        gives crash-free rates and adoption.
      </SetupHint>
    );
  // The chart: the five releases with the most sessions in the range, one line each.
  const top = [...rows]
    .filter((r) => r.periodSessions > 0)
    .sort((a, b) => b.periodSessions - a.periodSessions)
    .slice(0, 5);
  return (
    <div className="overflow-x-auto">
      {top.length > 0 && (
        <div className="mb-3 max-w-3xl">
          <TimeSeriesChart
            title={`Sessions per release, ${label}`}
            kind="line"
            data={{
              timestamps: window.buckets,
              series: top.map((r) => ({ label: r.version, values: r.series })),
              unit: "count",
              bucketMs: window.bucket,
            }}
          />
        </div>
      )}
      <table aria-label="Releases" className="w-full text-sm">
        <thead className="text-left text-xs text-muted">
          <tr>
            <th className="py-1 pr-3 font-medium">Release</th>
            <th className="py-1 pr-3 font-medium">Projects</th>
            <th className="py-1 pr-3 font-medium">First seen</th>
            <th className="py-1 pr-3 font-medium">Last event</th>
            <th className="py-1 pr-3 text-right font-medium">New issues</th>
            <th className="py-1 pr-3 text-right font-medium">Crash-free sessions</th>
            <th className="py-1 pr-3 text-right font-medium">Crash-free users</th>
            <th className="py-1 pr-3 text-right font-medium">Adoption</th>
            <th className="py-1 pr-3 font-medium">Sessions, {label}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const sessionsCf = crashFreeRate(r.sessions, r.crashed);
            const usersCf = crashFreeRate(r.users, r.crashedUsers);
            return (
              <tr
                key={r.version}
                data-release={r.version}
                data-sessions={r.sessions}
                data-crash-free-sessions={sessionsCf ?? ""}
                data-crash-free-users={usersCf ?? ""}
                data-adoption={r.adoption ?? ""}
                data-new-issues={r.newIssues}
                className="border-t border-line align-middle"
              >
                <td className="max-w-xs truncate py-1.5 pr-3 font-mono text-xs">
                  <Link
                    href={hrefWithFilters(
                      `/${orgSlug}/releases/${encodeURIComponent(r.version)}`,
                      filters,
                    )}
                  >
                    {r.version}
                  </Link>
                </td>
                <td className="py-1.5 pr-3 text-xs text-muted">{r.projects.join(", ")}</td>
                <td className="py-1.5 pr-3 text-xs">
                  <RelativeTime ms={r.firstSeen} now={now} />
                </td>
                <td className="py-1.5 pr-3 text-xs">
                  {r.lastEvent === null ? "—" : <RelativeTime ms={r.lastEvent} now={now} />}
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums">{r.newIssues}</td>
                <td
                  className="py-1.5 pr-3 text-right tabular-nums"
                  title={`${r.crashed} of ${r.sessions} sessions crashed`}
                >
                  {percent(sessionsCf)}
                </td>
                <td
                  className="py-1.5 pr-3 text-right tabular-nums"
                  title={`${r.crashedUsers} of ${r.users} users had a crash`}
                >
                  {percent(usersCf)}
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums">{percent(r.adoption, 1)}</td>
                <td className="py-1.5 pr-3">
                  <Sparkline values={r.series} label={`${r.periodSessions} sessions, ${label}`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
