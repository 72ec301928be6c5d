import type { Db } from "../db/connection";

/** An event's attachments (metadata only) and one attachment with its bytes' location. */
export async function listEventAttachments(db: Db, projectId: number, eventId: string) {
  return db.kysely
    .selectFrom("attachments")
    .select([
      "id",
      "event_id",
      "filename",
      "content_type",
      "attachment_type",
      "size",
      "sha256",
      "received_at",
    ])
    .where("project_id", "=", projectId)
    .where("event_id", "=", eventId)
    .orderBy("id")
    .limit(1000)
    .execute();
}

export type AttachmentMeta = Awaited<ReturnType<typeof listEventAttachments>>[number];

export async function getAttachment(db: Db, projectId: number, eventId: string, id: number) {
  return db.kysely
    .selectFrom("attachments")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("event_id", "=", eventId)
    .where("id", "=", id)
    .executeTakeFirst();
}
