import type { Insertable, Transaction } from "kysely";
import { storeOfTransaction, writeAttachmentFile } from "../../attachments/storage";
import type { AttachmentTable, Database } from "../../db/schema";
import type { AttachmentRecord, FeedbackRecord } from "../process/protocol-items";

/**
 * User feedback and attachments into their tables. Feedback names its event by id only; the
 * event and its issue are looked up when read, so feedback sent before its event still links.
 */
export async function storeFeedback(
  records: FeedbackRecord[],
  trx: Transaction<Database>,
): Promise<void> {
  // One row per (project, event_id) in a statement: PostgreSQL refuses to update a row twice.
  const unique = new Map(records.map((r) => [`${r.projectId}:${r.eventId}`, r]));
  const list = [...unique.values()];
  for (let i = 0; i < list.length; i += 200) {
    await trx
      .insertInto("feedback")
      .values(
        list.slice(i, i + 200).map((r) => ({
          project_id: r.projectId,
          event_id: r.eventId,
          associated_event_id: r.associatedEventId,
          name: r.name,
          email: r.email,
          message: r.message,
          url: r.url,
          source: r.source,
          received_at: r.receivedAt,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["project_id", "event_id"]).doUpdateSet((eb) => ({
          name: eb.ref("excluded.name"),
          email: eb.ref("excluded.email"),
          message: eb.ref("excluded.message"),
          url: eb.ref("excluded.url"),
        })),
      )
      .execute();
  }
}

export async function storeAttachments(
  records: AttachmentRecord[],
  trx: Transaction<Database>,
): Promise<void> {
  if (records.length === 0) return;
  const store = await storeOfTransaction(trx);
  // Many rows per statement, but statements of at most ~8 MiB: an attachment may be 100 MiB.
  let rows: Insertable<AttachmentTable>[] = [];
  let bytesInStatement = 0;
  const flush = async () => {
    if (rows.length > 0) await trx.insertInto("attachments").values(rows).execute();
    rows = [];
    bytesInStatement = 0;
  };
  for (const r of records) {
    const bytes = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
    const path =
      store.kind === "files" ? await writeAttachmentFile(store.root, r.sha256, bytes) : null;
    if (rows.length >= 100 || bytesInStatement + bytes.byteLength > 8 * 1024 * 1024) await flush();
    rows.push({
      project_id: r.projectId,
      event_id: r.eventId,
      filename: r.filename,
      content_type: r.contentType,
      attachment_type: r.attachmentType,
      size: bytes.byteLength,
      sha256: r.sha256,
      received_at: r.receivedAt,
      path,
      data: store.kind === "postgres" ? bytes : null,
    });
    if (store.kind === "postgres") bytesInStatement += bytes.byteLength;
  }
  await flush();
}
