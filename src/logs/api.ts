import { z } from "zod";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { findOrgProjects } from "../projects/org-projects";
import { type LogCursor, listLogs } from "./queries";

/**
 * GET /api/0/organizations/<org>/logs/?query=&project=&per_page=&cursor= — newest first.
 * `project` (repeatable) is a project id or slug of the org; the cursor is the opaque
 * `next_cursor` of the previous page.
 */
export const LogsQuerySchema = z.object({
  query: z.string().max(200).optional(),
  project: z
    .array(z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "must be a project id or slug"))
    .max(100)
    .optional(),
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

export type LogsQuery = z.infer<typeof LogsQuerySchema>;

/** The search params as the schema reads them; a bad one is a 400 naming it. */
export function parseLogsQuery(params: URLSearchParams): LogsQuery {
  const projects = params.getAll("project").filter((p) => p !== "");
  const parsed = LogsQuerySchema.safeParse({
    query: params.get("query") ?? undefined,
    project: projects.length > 0 ? projects : undefined,
    per_page: params.get("per_page") ?? undefined,
    cursor: params.get("cursor") ?? undefined,
  });
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AppError("bad_request", `${problem?.path.join(".") || "query"}: ${problem?.message}`);
  }
  return parsed.data;
}

function parseCursor(text: string): LogCursor | undefined {
  const m = /^([0-9.eE+-]{1,40}):(\d{1,15})$/.exec(text);
  if (!m) return undefined;
  const timestamp = Number(m[1]);
  return Number.isFinite(timestamp) ? { timestamp, id: Number(m[2]) } : undefined;
}

export async function logsResponse(db: Db, orgSlug: string, q: LogsQuery) {
  const org = await findOrgProjects(db, orgSlug);
  if (!org) throw new AppError("not_found", "organization not found");
  let projects = org.projects;
  if (q.project) {
    const wanted = new Set(q.project);
    projects = org.projects.filter((p) => wanted.has(String(p.id)) || wanted.has(p.slug));
    const found = new Set(projects.flatMap((p) => [String(p.id), p.slug]));
    const missing = q.project.find((p) => !found.has(p));
    if (missing) throw new AppError("not_found", `project ${missing} not found`);
  }
  const slugs = new Map(projects.map((p) => [p.id, p.slug]));
  const rows = await listLogs(db, {
    projectIds: projects.map((p) => p.id),
    text: q.query?.trim() || undefined,
    limit: q.per_page + 1,
    before: q.cursor,
  });
  const page = rows.slice(0, q.per_page);
  const last = page.at(-1);
  return {
    data: page.map((r) => ({
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
    })),
    next_cursor: rows.length > q.per_page && last ? `${last.timestamp}:${last.id}` : null,
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
