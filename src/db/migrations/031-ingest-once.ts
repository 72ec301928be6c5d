import { sql } from "kysely";
import type { AnyDb } from "./helpers";

/**
 * An SDK that retries an envelope sends its attachments and logs again, and they were stored
 * again (issue 42). One attachment is now one row per project, event, file name and content
 * (rows stored twice before are merged into the first: their files, named by content then,
 * are the same file). A log container (an envelope's `log` item whose logs carry their own
 * timestamps) is noted by a hash of its bytes in `log_containers`, and one seen before is not
 * stored again.
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
  await db.schema
    .createTable("log_containers")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("log_containers_pk", ["project_id", "hash"])
    .execute();
  await db.schema
    .createIndex("log_containers_received")
    .on("log_containers")
    .columns(["project_id", "received_at"])
    .execute();
}
