import Link from "next/link";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { Badge } from "@/components/ui/badge";
import { RelativeTime } from "@/components/ui/relative-time";
import type { IssueRef, ReleaseDetail } from "@/src/releases/detail";
import { crashFreeRate } from "@/src/releases/list";
import { percent } from "./range-filters";

function Figure({ label, value, name }: { label: string; value: string; name: string }) {
  return (
    <div className="rounded border border-line bg-surface px-3 py-2">
      <dt className="text-xs text-muted">{label}</dt>
      <dd className="text-lg font-semibold tabular-nums" data-figure={name}>
        {value}
      </dd>
    </div>
  );
}

export function ReleaseDetailView({
  detail,
  orgSlug,
  label,
  bucketMs,
  now,
}: {
  detail: ReleaseDetail;
  orgSlug: string;
  label: string;
  bucketMs: number;
  now: number;
}) {
  const r = detail.release;
  const timestamps = detail.health.map((h) => h.t);
  return (
    <>
      <dl className="mb-4 grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-7">
        <Figure
          name="crash-free-sessions"
          label="Crash-free sessions"
          value={percent(crashFreeRate(r.sessions, r.crashed))}
        />
        <Figure
          name="crash-free-users"
          label="Crash-free users"
          value={percent(crashFreeRate(r.users, r.crashedUsers))}
        />
        <Figure name="sessions" label="Sessions" value={String(r.sessions)} />
        <Figure name="users" label="Users" value={String(r.users)} />
        <Figure name="adoption" label="Adoption in range" value={percent(r.adoption, 1)} />
        <Figure name="new-issues" label="New issues" value={String(r.newIssues)} />
        <div className="rounded border border-line bg-surface px-3 py-2">
          <dt className="text-xs text-muted">First seen · last event</dt>
          <dd className="text-sm">
            <RelativeTime ms={r.firstSeen} now={now} /> ·{" "}
            {r.lastEvent === null ? "no events" : <RelativeTime ms={r.lastEvent} now={now} />}
          </dd>
        </div>
      </dl>
      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="health-heading">
          <h2 id="health-heading" className="mb-1.5 text-sm font-semibold">
            Health, {label}
          </h2>
          <div className="grid gap-2">
            <TimeSeriesChart
              title="Sessions"
              kind="bars"
              height={120}
              data={{
                timestamps,
                series: [
                  { label: "Sessions", values: detail.health.map((h) => h.sessions) },
                  { label: "Crashed", values: detail.health.map((h) => h.crashed) },
                ],
                unit: "count",
                bucketMs,
              }}
            />
            <TimeSeriesChart
              title="Crash-free sessions"
              height={120}
              data={{
                timestamps,
                series: [
                  {
                    label: "Crash-free sessions",
                    values: detail.health.map((h) =>
                      h.crashFree === null ? null : 100 * h.crashFree,
                    ),
                  },
                ],
                unit: "%",
                bucketMs,
              }}
            />
          </div>
          <details className="mt-2 text-xs">
            <summary className="cursor-pointer text-muted">
              Per {bucketMs >= 86_400_000 ? "day" : `${bucketMs / 3_600_000} h`}: sessions, crashed,
              crash-free
            </summary>
            <table aria-label="Health over time" className="mt-1 w-full tabular-nums">
              <thead className="text-left text-muted">
                <tr>
                  <th className="pr-3 font-medium">From (UTC)</th>
                  <th className="pr-3 text-right font-medium">Sessions</th>
                  <th className="pr-3 text-right font-medium">Crashed</th>
                  <th className="pr-3 text-right font-medium">Crash-free</th>
                </tr>
              </thead>
              <tbody>
                {detail.health
                  .filter((h) => h.sessions > 0)
                  .map((h) => (
                    <tr key={h.t} data-bucket={new Date(h.t).toISOString()}>
                      <td className="pr-3">
                        {new Date(h.t).toISOString().slice(0, 16).replace("T", " ")}
                      </td>
                      <td className="pr-3 text-right">{h.sessions}</td>
                      <td className="pr-3 text-right">{h.crashed}</td>
                      <td className="pr-3 text-right">{percent(h.crashFree)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </details>
        </section>
        <section aria-labelledby="env-heading">
          <h2 id="env-heading" className="mb-1.5 text-sm font-semibold">
            Environments
          </h2>
          {detail.environments.length === 0 ? (
            <p className="text-xs text-muted">
              No sessions: set the SDK&apos;s environment option.
            </p>
          ) : (
            <table aria-label="Environments" className="w-full text-sm tabular-nums">
              <thead className="text-left text-xs text-muted">
                <tr>
                  <th className="pr-3 font-medium">Environment</th>
                  <th className="pr-3 text-right font-medium">Sessions</th>
                  <th className="pr-3 text-right font-medium">Crash-free</th>
                  <th className="pr-3 font-medium">Last hour with sessions</th>
                </tr>
              </thead>
              <tbody>
                {detail.environments.map((e) => (
                  <tr key={e.name} className="border-t border-line">
                    <td className="pr-3">{e.name || "(none)"}</td>
                    <td className="pr-3 text-right">{e.sessions}</td>
                    <td className="pr-3 text-right">{percent(e.crashFree)}</td>
                    <td className="pr-3 text-xs">
                      <RelativeTime ms={e.lastSeen} now={now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        <IssueList
          id="new-issues"
          title="New issues in this release"
          empty="No issue was first seen in this release."
          issues={detail.newIssues}
          orgSlug={orgSlug}
          now={now}
        />
        <IssueList
          id="resolved-issues"
          title="Resolved in this release"
          empty="No issue is resolved in this release. Resolve one “in release” or “in the next release” from its page."
          issues={detail.resolvedIssues}
          orgSlug={orgSlug}
          now={now}
        />
      </div>
    </>
  );
}

function IssueList({
  id,
  title,
  empty,
  issues,
  orgSlug,
  now,
}: {
  id: string;
  title: string;
  empty: string;
  issues: (IssueRef & { how?: string })[];
  orgSlug: string;
  now: number;
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id} className="mb-1.5 text-sm font-semibold">
        {title} ({issues.length})
      </h2>
      {issues.length === 0 ? (
        <p className="text-xs text-muted">{empty}</p>
      ) : (
        <ul className="flex flex-col gap-1 text-sm">
          {issues.map((i) => (
            <li key={i.id} className="flex items-baseline gap-2 border-t border-line pt-1">
              <Link href={`/${orgSlug}/issues/${i.id}`} className="min-w-0 flex-1 truncate">
                {i.title}
              </Link>
              {i.how && <Badge tone="ok">{i.how}</Badge>}
              <span className="text-xs text-muted">{i.projectSlug}</span>
              <span className="text-xs text-muted">
                <RelativeTime ms={i.firstSeen} now={now} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
