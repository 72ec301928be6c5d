import type { Db } from "../db/connection";
import type { UptimeMonitorRow } from "./model";
import { findOrgUptimeMonitor, listIncidents, recentChecks, uptimeShare } from "./queries";

/**
 * What the monitor page shows: uptime over 24 h, 7 d and 30 d, the last day's response times
 * in 15-minute buckets, the incidents, and the certificate's expiry when within the
 * monitor's warning days.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BUCKET = 15 * 60_000;

export interface UptimePageData {
  monitor: UptimeMonitorRow;
  uptime: { label: string; share: number | null }[];
  /** Mean response time (ms) per bucket, null where no check ran. */
  responseTimes: { timestamps: number[]; values: (number | null)[]; bucketMs: number };
  incidents: Awaited<ReturnType<typeof listIncidents>>;
  lastCheck: Awaited<ReturnType<typeof recentChecks>>[number] | undefined;
  certWarning: string | null;
}

export async function uptimePageData(
  db: Db,
  orgId: number,
  id: number,
  now = Date.now(),
): Promise<UptimePageData | undefined> {
  const monitor = await findOrgUptimeMonitor(db, orgId, id);
  if (!monitor) return undefined;
  const [day, week, month, checks, incidents] = await Promise.all([
    uptimeShare(db, id, now - DAY),
    uptimeShare(db, id, now - 7 * DAY),
    uptimeShare(db, id, now - 30 * DAY),
    recentChecks(db, id, now - DAY),
    listIncidents(db, id),
  ]);
  const start = Math.floor((now - DAY) / BUCKET) * BUCKET;
  const timestamps: number[] = [];
  for (let t = start; t <= now; t += BUCKET) timestamps.push(t);
  const sums = new Map<number, { total: number; n: number }>();
  for (const c of checks) {
    const b = Math.floor(c.startedAt / BUCKET) * BUCKET;
    const s = sums.get(b) ?? { total: 0, n: 0 };
    s.total += c.durationMs;
    s.n++;
    sums.set(b, s);
  }
  const lastCheck = checks.at(-1);
  const expiry = lastCheck?.certExpiresAt ?? null;
  const warnDays = Number(monitor.tls_warning_days);
  const daysLeft = expiry === null ? null : Math.floor((expiry - now) / DAY);
  return {
    monitor,
    uptime: [
      { label: "24 hours", share: day },
      { label: "7 days", share: week },
      { label: "30 days", share: month },
    ],
    responseTimes: {
      timestamps,
      values: timestamps.map((t) => {
        const s = sums.get(t);
        return s ? s.total / s.n : null;
      }),
      bucketMs: BUCKET,
    },
    incidents,
    lastCheck,
    certWarning:
      daysLeft !== null && warnDays > 0 && daysLeft < warnDays
        ? `The TLS certificate expires in ${Math.max(0, daysLeft)} days (${new Date(expiry as number).toISOString().slice(0, 10)}).`
        : null,
  };
}
