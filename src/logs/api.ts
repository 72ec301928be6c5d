import { z } from "zod";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { findOrgProjects } from "../projects/org-projects";
import { bucketFor } from "../ui/page-filters";
import {
  type LogFilters,
  LogFiltersSchema,
  parseLogQuery,
  RANGES,
  readLogFilters,
} from "./filters";
import {
  type LogCursor,
  type LogRow,
  type LogWhere,
  listLogs,
  logVolumeWithin,
  VOLUME_BUDGET_MS,
} from "./queries";

/**
 * GET /api/0/organizations/<org>/logs/?query=&project=&severity=&environment=&release=
 * &trace=&range=&per_page=&cursor= — newest first. `project` (repeatable) is a project id
 * or slug of the org; `query` is body text plus `key:value` attribute terms; the cursor is
 * the opaque `next_cursor` of the previous page. …/logs/volume/ gives the histogram.
 */
const PageSchema = z.object({
  per_page: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z
    .string()
    .max(80)
    .transform((s, ctx) => {
      const cursor = parseCursor(s);
      if (!cursor) ctx.addIssue({ code: "custom", message: "invalid cursor" });
      return cursor as LogCursor;
    })
    .optional(),
});

export type LogsQuery = LogFilters & z.infer<typeof PageSchema>;

/** The search params as the schemas read them; a bad one is a 400 naming it. */
export function parseLogsQuery(params: URLSearchParams): LogsQuery {
  const { filters, invalid } = readLogFilters(params);
  if (invalid.length > 0) {
    const name = invalid[0] as keyof LogFilters;
    const problem = LogFiltersSchema.shape[name].safeParse(params.get(name)).error?.issues[0];
    throw new AppError("bad_request", `${name}: ${problem?.message ?? "invalid"}`);
  }
  const parsed = PageSchema.safeParse({
    per_page: params.get("per_page") ?? undefined,
    cursor: params.get("cursor") ?? undefined,
  });
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AppError("bad_request", `${problem?.path.join(".") || "query"}: ${problem?.message}`);
  }
  return { ...filters, ...parsed.data };
}

export function parseCursor(text: string): LogCursor | undefined {
  const m = /^([0-9.eE+-]{1,40}):(\d{1,15})$/.exec(text);
  if (!m) return undefined;
  const timestamp = Number(m[1]);
  return Number.isFinite(timestamp) ? { timestamp, id: Number(m[2]) } : undefined;
}

export interface LogScope {
  orgId: number;
  projects: { id: number; slug: string }[];
  where: LogWhere;
}

/** The org's projects the filters name (all when none) and the WHERE the filters make. */
export async function resolveLogScope(
  db: Db,
  orgSlug: string,
  f: LogFilters,
  now = Date.now(),
): Promise<LogScope> {
  const org = await findOrgProjects(db, orgSlug);
  if (!org) throw new AppError("not_found", "organization not found");
  let projects = org.projects;
  if (f.project) {
    const wanted = new Set(f.project);
    projects = org.projects.filter((p) => wanted.has(String(p.id)) || wanted.has(p.slug));
    const found = new Set(projects.flatMap((p) => [String(p.id), p.slug]));
    const missing = f.project.find((p) => !found.has(p));
    if (missing) throw new AppError("not_found", `project ${missing} not found`);
  }
  const { text, attributes } = parseLogQuery(f.query);
  return {
    orgId: org.orgId,
    projects,
    where: {
      projectIds: projects.map((p) => p.id),
      text,
      attributes,
      severities: f.severity,
      environment: f.environment,
      release: f.release,
      traceId: f.trace,
      since: f.range === "custom" ? f.start : f.range ? now - RANGES[f.range] : undefined,
      until: f.range === "custom" ? f.end : undefined,
    },
  };
}

export function serializeLog(r: LogRow, slugs: Map<number, string>) {
  return {
    id: String(r.id),
    project_id: r.project_id,
    project: slugs.get(r.project_id) ?? null,
    timestamp: new Date(r.timestamp).toISOString(),
    timestamp_precise: r.timestamp,
    trace_id: r.trace_id,
    span_id: r.span_id,
    severity: r.severity,
    severity_number: r.severity_number,
    body: r.body,
    attributes: parseAttributes(r.attributes),
    release: r.release,
    environment: r.environment,
  };
}

export type SerializedLog = ReturnType<typeof serializeLog>;

export async function logsResponse(db: Db, orgSlug: string, q: LogsQuery) {
  const scope = await resolveLogScope(db, orgSlug, q);
  const slugs = new Map(scope.projects.map((p) => [p.id, p.slug]));
  const rows = await listLogs(db, { ...scope.where, limit: q.per_page + 1, before: q.cursor });
  const page = rows.slice(0, q.per_page);
  const last = page.at(-1);
  return {
    data: page.map((r) => serializeLog(r, slugs)),
    next_cursor: rows.length > q.per_page && last ? `${last.timestamp}:${last.id}` : null,
  };
}

/** The histogram's bucket width for a range: about 50–60 bars. */
export const VOLUME_STEP: Record<keyof typeof RANGES, number> = {
  "1h": 60_000,
  "24h": 30 * 60_000,
  "7d": 3 * 3_600_000,
  "14d": 6 * 3_600_000,
  "30d": 12 * 3_600_000,
};

/**
 * GET …/logs/volume/: counts per severity and bucket over the range (default 24 h); with
 * `before`, only the buckets before it. A filter no index answers is counted for `budgetMs`.
 */
export async function logVolumeResponse(
  db: Db,
  orgSlug: string,
  q: LogFilters,
  now = Date.now(),
  budgetMs = VOLUME_BUDGET_MS,
) {
  const range = q.range ?? "24h";
  const scope = await resolveLogScope(db, orgSlug, { ...q, range }, now);
  const custom = range === "custom" && q.start !== undefined && q.end !== undefined;
  const step = custom
    ? bucketFor((q.end as number) - (q.start as number))
    : VOLUME_STEP[range as keyof typeof VOLUME_STEP];
  const from = custom ? (q.start as number) : now - RANGES[range as keyof typeof RANGES];
  const since = Math.floor(from / step) * step;
  const end = custom ? (q.end as number) : undefined;
  const until = q.before === undefined ? end : Math.min(q.before, end ?? now);
  const { buckets, countedFrom } = await logVolumeWithin(
    db,
    { ...scope.where, since, until },
    step,
    q.count === "all" ? Number.POSITIVE_INFINITY : budgetMs,
    now,
  );
  return {
    range,
    step_ms: step,
    since: new Date(since).toISOString(),
    until: new Date(until ?? now).toISOString(),
    /** Null: every bucket counted. Else buckets before this time were not (see `count=all`). */
    counted_from: countedFrom === null ? null : new Date(countedFrom).toISOString(),
    data: buckets.map((b) => ({ time: new Date(b.start).toISOString(), ...b })),
  };
}

function parseAttributes(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}
