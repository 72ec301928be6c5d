import type { Db } from "../db/connection";
import { env } from "../env";
import { findOrgProjects } from "../projects/org-projects";
import { findSetupDsn } from "../projects/queries";
import { type LogsQuery, logsResponse, logVolumeResponse, parseCursor } from "./api";
import { type LogFilters, logFiltersToParams } from "./filters";

/** What the explorer page shows, through the same functions as the REST API. */
export async function logsPageData(
  db: Db,
  orgSlug: string,
  filters: LogFilters,
  cursorText: string | undefined,
  baseUrl: string,
  now = Date.now(),
) {
  const org = await findOrgProjects(db, orgSlug);
  const allProjects = org?.projects ?? [];
  // A project filter naming no project of the org falls back to all projects.
  const known = new Set(allProjects.flatMap((p) => [String(p.id), p.slug]));
  const f: LogFilters = filters.project?.every((p) => known.has(p))
    ? filters
    : { ...filters, project: undefined };
  const withRange = { ...f, range: f.range ?? ("24h" as const) };
  const q: LogsQuery = {
    ...withRange,
    per_page: 100,
    cursor: cursorText ? parseCursor(cursorText) : undefined,
  };
  const [list, volume, anyLog] = await Promise.all([
    logsResponse(db, orgSlug, q),
    // A short count, so the list is not kept waiting: the chart counts the rest (moreVolume).
    logVolumeResponse(db, orgSlug, withRange, now, env().FAULTLINE_LOGS_PAGE_COUNT_MS),
    allProjects.length > 0
      ? db.kysely
          .selectFrom("log_items")
          .select("id")
          .where(
            "project_id",
            "in",
            allProjects.map((p) => p.id),
          )
          .limit(1)
          .executeTakeFirst()
      : undefined,
  ]);
  const first = allProjects[0];
  const dsn = !anyLog && first ? await findSetupDsn(db, first.id, baseUrl) : null;
  return {
    allProjects,
    logs: list.data,
    nextCursor: list.next_cursor,
    volume,
    /** The volume API for these filters: `&before=<counted_from>` counts what the page left. */
    moreVolume: `/api/0/organizations/${encodeURIComponent(orgSlug)}/logs/volume/?${logFiltersToParams(withRange)}`,
    hasAnyLog: anyLog !== undefined,
    setup: first ? { dsn, projectSlug: first.slug } : null,
  };
}
