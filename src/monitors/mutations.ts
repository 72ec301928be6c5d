import type { AuditActor } from "../audit/record";
import { recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import { AppError } from "../errors";

/** Mute, unmute and delete a monitor (admins); each audited in the same transaction. */
async function findMonitor(db: Db, orgId: number, slug: string) {
  const m = await db.kysely
    .selectFrom("monitors")
    .innerJoin("projects", "projects.id", "monitors.project_id")
    .select(["monitors.id", "monitors.slug", "monitors.muted"])
    .where("projects.organization_id", "=", orgId)
    .where("monitors.slug", "=", slug)
    .executeTakeFirst();
  if (!m) throw new AppError("not_found", "monitor not found");
  return m;
}

export async function setMonitorMuted(
  db: Db,
  orgId: number,
  slug: string,
  muted: boolean,
  actor: AuditActor,
): Promise<void> {
  const m = await findMonitor(db, orgId, slug);
  if ((m.muted === 1) === muted) return;
  await db.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable("monitors")
      .set({ muted: muted ? 1 : 0 })
      .where("id", "=", m.id)
      .execute();
    await recordAudit(trx, {
      orgId,
      actor,
      action: muted ? "monitor.mute" : "monitor.unmute",
      target: m.slug,
    });
  });
}

export async function deleteMonitor(
  db: Db,
  orgId: number,
  slug: string,
  actor: AuditActor,
): Promise<void> {
  const m = await findMonitor(db, orgId, slug);
  await db.kysely.transaction().execute(async (trx) => {
    await trx.deleteFrom("check_ins").where("monitor_id", "=", m.id).execute();
    await trx.deleteFrom("monitors").where("id", "=", m.id).execute();
    await recordAudit(trx, { orgId, actor, action: "monitor.delete", target: m.slug });
  });
}
