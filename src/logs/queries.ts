import { sql } from "kysely";
import type { Db } from "../db/connection";

/** Log items newest first, by keyset on (timestamp, id) so pages stay stable as logs arrive. */
export interface LogCursor {
  timestamp: number;
  id: number;
}

export interface LogListOptions {
  projectIds: number[];
  /** Case-insensitive substring of the body. */
  text?: string;
  limit: number;
  before?: LogCursor;
}

/**
 * Up to this many projects are read one by one and merged: each read walks the
 * (project_id, timestamp, id) index backwards and stops at the page size, where one query
 * over all of them would sort every log of those projects first.
 */
const MERGE_PROJECTS = 50;

export async function listLogs(db: Db, options: LogListOptions) {
  const { projectIds } = options;
  if (projectIds.length === 0) return [];
  if (projectIds.length === 1 || projectIds.length > MERGE_PROJECTS)
    return listLogsOf(db, projectIds, options);
  const pages = await Promise.all(projectIds.map((id) => listLogsOf(db, [id], options)));
  return pages
    .flat()
    .sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
    .slice(0, options.limit);
}

function listLogsOf(db: Db, projectIds: number[], options: LogListOptions) {
  let query = db.kysely
    .selectFrom("log_items")
    .selectAll()
    .where("project_id", "in", projectIds)
    .orderBy("timestamp", "desc")
    .orderBy("id", "desc")
    .limit(options.limit);
  if (options.text) {
    const pattern = `%${options.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // ESCAPE is spelled out: SQLite has no default escape character for LIKE.
    query = query.where(sql<boolean>`lower(body) LIKE ${pattern} ESCAPE '\\'`);
  }
  const before = options.before;
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb("timestamp", "<", before.timestamp),
        eb.and([eb("timestamp", "=", before.timestamp), eb("id", "<", before.id)]),
      ]),
    );
  }
  return query.execute();
}
