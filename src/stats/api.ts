import { z } from "zod";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { orgIdOrThrow } from "../orgs/find-org";
import { orgOutcomes } from "./queries";

/**
 * `GET /api/0/organizations/<org>/stats_v2/`: Sentry's usage stats from the outcomes table,
 * `{start, end, intervals, groups: [{by, totals, series}]}`. Outcomes are kept per hour, so
 * the interval is a whole number of hours.
 */
const HOUR = 3_600_000;
const UNIT_MS: Record<string, number> = { m: 60_000, h: HOUR, d: 24 * HOUR, w: 7 * 24 * HOUR };
const GROUP_BY = ["category", "outcome", "reason", "project"] as const;
const FIELD = "sum(quantity)";

const duration = z
  .string()
  .regex(/^\d{1,5}[mhdw]$/, "expected a duration like 24h, 14d or 1w")
  .transform((s) => Number(s.slice(0, -1)) * (UNIT_MS[s.slice(-1)] as number));
const isoTime = z.iso.datetime({ offset: true }).transform((s) => Date.parse(s));

const StatsQuery = z
  .object({
    field: z.array(z.literal(FIELD, `field must be ${FIELD}`)).min(1, `field=${FIELD} is required`),
    groupBy: z.array(z.enum(GROUP_BY)).default([]),
    statsPeriod: z.array(duration).max(1).default([]),
    interval: z.array(duration).max(1).default([]),
    start: z.array(isoTime).max(1).default([]),
    end: z.array(isoTime).max(1).default([]),
    project: z
      .array(
        z
          .string()
          .regex(/^-?\d{1,15}$/)
          .transform(Number),
      )
      .default([]),
    category: z.array(z.string().max(32)).default([]),
    outcome: z.array(z.string().max(32)).default([]),
  })
  .refine((q) => (q.start.length === 0) === (q.end.length === 0), "start and end go together");

type By = Partial<Record<(typeof GROUP_BY)[number], string | number>>;

function parseQuery(params: URLSearchParams) {
  const raw: Record<string, string[]> = {};
  for (const [key, value] of params) {
    const list = raw[key] ?? [];
    list.push(value);
    raw[key] = list;
  }
  const parsed = StatsQuery.safeParse(raw);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AppError("bad_request", `${problem?.path.join(".") || "query"}: ${problem?.message}`);
  }
  return parsed.data;
}

export async function statsV2Response(
  db: Db,
  orgSlug: string,
  params: URLSearchParams,
  now = Date.now(),
) {
  const orgId = await orgIdOrThrow(db, orgSlug);
  const q = parseQuery(params);
  const interval = q.interval[0] ?? HOUR;
  if (interval % HOUR !== 0) throw new AppError("bad_request", "interval: a whole number of hours");
  let start: number;
  let end: number;
  if (q.start[0] !== undefined && q.end[0] !== undefined) {
    start = Math.floor(q.start[0] / interval) * interval;
    end = Math.ceil(q.end[0] / interval) * interval;
  } else {
    end = Math.floor(now / interval) * interval + interval;
    start = Math.floor((now - (q.statsPeriod[0] ?? 24 * HOUR)) / interval) * interval;
  }
  const buckets = (end - start) / interval;
  if (!(buckets >= 1 && buckets <= 1000))
    throw new AppError("bad_request", "the period must span between 1 and 1000 intervals");

  const rows = await orgOutcomes(db, {
    orgId,
    start,
    end,
    projectIds: q.project.filter((p) => p > 0),
    categories: q.category,
    outcomes: q.outcome,
  });
  const groups = new Map<string, { by: By; total: number; series: number[] }>();
  for (const r of rows) {
    const by: By = {};
    for (const g of q.groupBy) {
      if (g === "project") by.project = r.projectId;
      else if (g === "reason") by.reason = r.reason || "none";
      else by[g] = r[g];
    }
    const key = JSON.stringify(by);
    let group = groups.get(key);
    if (!group) {
      group = { by, total: 0, series: new Array(buckets).fill(0) };
      groups.set(key, group);
    }
    const quantity = Number(r.quantity);
    const i = Math.floor((Number(r.hour) - start) / interval);
    group.total += quantity;
    group.series[i] = (group.series[i] ?? 0) + quantity;
  }
  return {
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    intervals: Array.from({ length: buckets }, (_, i) =>
      new Date(start + i * interval).toISOString(),
    ),
    groups: [...groups.values()].map((g) => ({
      by: g.by,
      totals: { [FIELD]: g.total },
      series: { [FIELD]: g.series },
    })),
  };
}
