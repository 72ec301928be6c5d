import type { Insertable, Transaction } from "kysely";
import { attachmentPath, storeOfTransaction, writeAttachmentFile } from "../../attachments/storage";
import type { AttachmentTable, Database } from "../../db/schema";
import type { OutcomeCounter } from "../process/outcomes";
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

/**
 * Attachments, each once: an SDK's retry of an envelope sends them again, and the unique index
 * (031-ingest-once.ts) keeps the first; the accepted outcome counts only the stored ones.
 */
export async function storeAttachments(
  records: AttachmentRecord[],
  outcomes: OutcomeCounter,
  trx: Transaction<Database>,
): Promise<void> {
  if (records.length === 0) return;
  const store = await storeOfTransaction(trx);
  const keyOf = (r: { project_id: number; event_id: string; filename: string; sha256: string }) =>
    `${r.project_id}\u0000${r.event_id}\u0000${r.filename}\u0000${r.sha256}`;
  /** How many rows of each attachment the inserts stored (0 or 1). */
  const stored = new Map<string, number>();
  // Many rows per statement, but statements of at most ~8 MiB: an attachment may be 100 MiB.
  let rows: Insertable<AttachmentTable>[] = [];
  let bytesInStatement = 0;
  const flush = async () => {
    if (rows.length > 0) {
      const inserted = await trx
        .insertInto("attachments")
        .values(rows)
        .onConflict((oc) =>
          oc.columns(["project_id", "event_id", "filename", "sha256"]).doNothing(),
        )
        .returning(["project_id", "event_id", "filename", "sha256"])
        .execute();
      for (const r of inserted) {
        const key = keyOf({ ...r, project_id: Number(r.project_id) });
        stored.set(key, (stored.get(key) ?? 0) + 1);
      }
    }
    rows = [];
    bytesInStatement = 0;
  };
  for (const r of records) {
    const bytes = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
    const path =
      store.kind === "files"
        ? await writeAttachmentFile(
            store.root,
            attachmentPath(r.sha256, {
              projectId: r.projectId,
              eventId: r.eventId,
              filename: r.filename,
            }),
            bytes,
          )
        : null;
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
  for (const r of records) {
    const key = keyOf({
      project_id: r.projectId,
      event_id: r.eventId,
      filename: r.filename,
      sha256: r.sha256,
    });
    const left = stored.get(key) ?? 0;
    if (left > 0) stored.set(key, left - 1);
    outcomes.add(
      r.projectId,
      r.receivedAt,
      "attachment",
      left > 0 ? "accepted" : "filtered",
      left > 0 ? "" : "duplicate",
      r.data.byteLength,
    );
  }
}
