import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { findProjectBySlugs } from "../projects/queries";
import { type AttachmentMeta, getAttachment, listEventAttachments } from "./queries";
import { readAttachmentBytes, storeOfDb } from "./storage";

/**
 * An event's attachments in Sentry's shape, and one attachment's metadata or (with
 * `?download=1`) its bytes. The bytes are untrusted: they are always served as a download
 * of type application/octet-stream, never rendered by the browser on Faultline's origin.
 */
function serialize(a: AttachmentMeta) {
  return {
    id: String(a.id),
    event_id: a.event_id,
    type: a.attachment_type,
    name: a.filename,
    mimetype: a.content_type ?? "application/octet-stream",
    size: Number(a.size),
    sha256: a.sha256,
    dateCreated: new Date(a.received_at).toISOString(),
    headers: { "Content-Type": a.content_type ?? "application/octet-stream" },
  };
}

async function projectIdOf(db: Db, orgSlug: string, projectSlug: string): Promise<number> {
  const project = await findProjectBySlugs(db, orgSlug, projectSlug);
  if (!project) throw new AppError("not_found", "project not found");
  return project.id;
}

export async function eventAttachmentsResponse(
  db: Db,
  orgSlug: string,
  projectSlug: string,
  eventId: string,
) {
  const projectId = await projectIdOf(db, orgSlug, projectSlug);
  return (await listEventAttachments(db, projectId, eventId)).map(serialize);
}

export async function eventAttachmentResponse(
  db: Db,
  ref: { org: string; project: string; eventId: string; attachmentId: number },
  download: boolean,
): Promise<unknown> {
  const projectId = await projectIdOf(db, ref.org, ref.project);
  const row = await getAttachment(db, projectId, ref.eventId, ref.attachmentId);
  if (!row) throw new AppError("not_found", "attachment not found");
  if (!download) return serialize(row);
  const bytes = await readAttachmentBytes(storeOfDb(db), row);
  if (!bytes) throw new AppError("not_found", "attachment bytes are gone");
  // RFC 6266: an ASCII fallback plus the exact name, percent-encoded.
  const ascii = row.filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return new Response(new Uint8Array(bytes), {
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(bytes.byteLength),
      "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(row.filename)}`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
    },
  });
}
