import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { Sparkline } from "@/components/ui/sparkline";
import { getDb } from "@/src/db/connection";
import { crashFreeRate, listReleases } from "@/src/releases/list";
import { hrefWith, PERIODS, type Period, periodWindow } from "@/src/releases/page-params";
import { percent } from "./range-filters";
import { SetupHint } from "./setup-hint";

export const releaseSnippet = (dsn: string) =>
  `import * as Sentry from "@sentry/node";\n\nSentry.init({\n  dsn: "${dsn}",\n  // Names the release; the SDK then sends a session per run (release health).\n  release: "my-app@1.0.0",\n  environment: "production",\n});`;

/** The releases list: one row per version, its figures as data attributes for tests. */
export async function ReleaseTable({
  orgId,
  orgSlug,
  projectId,
  environment,
  period,
  query,
}: {
  orgId: number;
  orgSlug: string;
  projectId?: number;
  environment?: string;
  period: Period;
  query: Record<string, string | undefined>;
}) {
  const now = Date.now();
  const window = periodWindow(period, now);
  const rows = await listReleases(getDb(), { orgId, projectId, environment }, window);
  if (rows.length === 0)
    return (
      <SetupHint orgId={orgId} title="No releases yet" snippet={releaseSnippet}>
        Releases appear when an SDK sends events or sessions with a <code>release</code> option set.
        Server SDKs send one session per process or request; browser SDKs one per page load — that
        gives crash-free rates and adoption.
      </SetupHint>
    );
  return (
    <div className="overflow-x-auto">
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
            <th className="py-1 pr-3 font-medium">Sessions, {PERIODS[period].label}</th>
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
                    href={hrefWith(`/${orgSlug}/releases/${encodeURIComponent(r.version)}`, query, {
                      period: "14d",
                    })}
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
                  <Sparkline
                    values={r.series}
                    label={`${r.periodSessions} sessions in ${PERIODS[period].label}`}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
