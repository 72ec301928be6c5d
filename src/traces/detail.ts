import { sql } from "kysely";
import type { Db } from "../db/connection";
import { findOrgProjects } from "../projects/org-projects";
import { byTraceProjectId, MAX_TRACE_SPANS, traceErrors } from "./queries";
import { buildWaterfall, LIST_TEXT, type Waterfall, type WaterfallSpan } from "./waterfall";

/** Everything the trace page shows: the waterfall, the errors, the log lines. */
export const MAX_TRACE_LOGS = 500;

export interface TraceLogLine {
  id: number;
  timestamp: number;
  severity: string;
  body: string;
  span_id: string | null;
  project: string;
}

export interface TracePage extends Waterfall {
  errors: Awaited<ReturnType<typeof traceErrors>>;
  logs: TraceLogLine[];
  truncated: boolean;
  projects: Map<number, string>;
}

export async function loadTracePage(
  db: Db,
  orgSlug: string,
  traceId: string,
): Promise<TracePage | undefined> {
  const org = await findOrgProjects(db, orgSlug);
  if (!org) return undefined;
  const ids = org.projects.map((p) => p.id);
  const slugs = new Map(org.projects.map((p) => [p.id, p.slug]));
  const [spans, errors, logs] = await Promise.all([
    waterfallSpans(db, ids, traceId),
    traceErrors(db, ids, traceId),
    traceLogs(db, ids, traceId),
  ]);
  if (spans.length === 0 && errors.length === 0 && logs.length === 0) return undefined;
  return {
    ...buildWaterfall(spans, errors, slugs),
    errors,
    logs: logs.map((l) => ({ ...l, project: slugs.get(l.project_id) ?? String(l.project_id) })),
    truncated: spans.length >= MAX_TRACE_SPANS,
    projects: slugs,
  };
}

/**
 * The spans of a trace as the waterfall draws them: no attributes (the detail panel reads a
 * span's when it is selected), the text cut where the list cuts it.
 */
async function waterfallSpans(
  db: Db,
  projectIds: number[],
  traceId: string,
): Promise<WaterfallSpan[]> {
  if (projectIds.length === 0) return [];
  // Each of 10,000 rows costs in the driver and in memory: only what the list draws.
  const cut = LIST_TEXT + 1;
  const rows = await db.kysely
    .selectFrom("spans")
    .select((eb) => [
      "project_id",
      "span_id",
      "parent_span_id",
      "is_segment",
      "op",
      "status",
      "start_timestamp",
      "end_timestamp",
      "duration",
      sql<string | null>`substr(description, 1, ${cut})`.as("description"),
      // The name only matters where there is no description.
      eb
        .case()
        .when("description", "is", null)
        .then(sql<string>`substr(name, 1, ${cut})`)
        .else("")
        .end()
        .as("name"),
    ])
    .where("trace_id", "=", traceId)
    .where(byTraceProjectId, "in", projectIds)
    .limit(MAX_TRACE_SPANS)
    .execute();
  return rows;
}

async function traceLogs(db: Db, projectIds: number[], traceId: string) {
  if (projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("log_items")
    .select(["id", "timestamp", "severity", "body", "span_id", "project_id"])
    .where("trace_id", "=", traceId)
    .where(byTraceProjectId, "in", projectIds)
    .orderBy("timestamp")
    .orderBy("id")
    .limit(MAX_TRACE_LOGS)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), timestamp: Number(r.timestamp) }));
}

export interface SpanDetail {
  span_id: string;
  parent_span_id: string | null;
  project: string;
  name: string;
  description: string | null;
  op: string | null;
  status: string | null;
  start_timestamp: number;
  end_timestamp: number;
  duration: number;
  release: string | null;
  environment: string | null;
  segment_name: string | null;
  is_segment: boolean;
  attributes: [string, string][];
}

/** One span of an organization's trace, with its attributes as key/text pairs. */
export async function loadSpanDetail(
  db: Db,
  orgSlug: string,
  traceId: string,
  spanId: string,
): Promise<SpanDetail | undefined> {
  const org = await findOrgProjects(db, orgSlug);
  if (!org || org.projects.length === 0) return undefined;
  const row = await db.kysely
    .selectFrom("spans")
    .selectAll()
    .where("trace_id", "=", traceId)
    .where("span_id", "=", spanId)
    .where(
      byTraceProjectId,
      "in",
      org.projects.map((p) => p.id),
    )
    .executeTakeFirst();
  if (!row) return undefined;
  let data: Record<string, unknown> = {};
  try {
    const parsed = row.data ? (JSON.parse(row.data) as unknown) : {};
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      data = parsed as Record<string, unknown>;
  } catch {
    data = {};
  }
  return {
    span_id: row.span_id,
    parent_span_id: row.parent_span_id,
    project: org.projects.find((p) => p.id === row.project_id)?.slug ?? String(row.project_id),
    name: row.name,
    description: row.description,
    op: row.op,
    status: row.status,
    start_timestamp: Number(row.start_timestamp),
    end_timestamp: Number(row.end_timestamp),
    duration: Number(row.duration),
    release: row.release,
    environment: row.environment,
    segment_name: row.segment_name,
    is_segment: row.is_segment === 1,
    attributes: Object.entries(data)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  };
}
