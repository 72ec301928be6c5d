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

export async function listLogs(db: Db, options: LogListOptions) {
  if (options.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("log_items")
    .selectAll()
    .where("project_id", "in", options.projectIds)
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
