import { sql } from "kysely";
import type { AnyDb } from "./helpers";

/**
 * An SDK that retries an envelope sent its attachments again, and each was stored again
 * (issue 42): one attachment is now one row per project, event, file name and content. Rows
 * stored twice before are merged into the first (their files, named by content then, are the
 * same file).
 */
export async function up(db: AnyDb): Promise<void> {
  await sql`delete from attachments where id not in (
    select min(id) from attachments group by project_id, event_id, filename, sha256)`.execute(db);
  await db.schema
    .createIndex("attachments_once")
    .on("attachments")
    .columns(["project_id", "event_id", "filename", "sha256"])
    .unique()
    .execute();
}
