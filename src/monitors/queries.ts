import type { Db } from "../db/connection";

/** Read queries for cron monitors and their check-ins. */
export async function listOrgMonitors(db: Db, orgId: number) {
  return db.kysely
    .selectFrom("monitors")
    .innerJoin("projects", "projects.id", "monitors.project_id")
    .selectAll("monitors")
    .select(["projects.slug as projectSlug"])
    .where("projects.organization_id", "=", orgId)
    .orderBy("monitors.slug")
    .orderBy("monitors.id")
    .limit(1000)
    .execute();
}

export type MonitorRow = Awaited<ReturnType<typeof listOrgMonitors>>[number];

export async function listCheckIns(db: Db, orgId: number, slug: string, limit = 100) {
  return db.kysely
    .selectFrom("check_ins")
    .innerJoin("monitors", "monitors.id", "check_ins.monitor_id")
    .innerJoin("projects", "projects.id", "monitors.project_id")
    .selectAll("check_ins")
    .where("projects.organization_id", "=", orgId)
    .where("monitors.slug", "=", slug)
    .orderBy("check_ins.received_at", "desc")
    .orderBy("check_ins.id", "desc")
    .limit(Math.min(limit, 1000))
    .execute();
}

export async function monitorExists(db: Db, orgId: number, slug: string): Promise<boolean> {
  const row = await db.kysely
    .selectFrom("monitors")
    .innerJoin("projects", "projects.id", "monitors.project_id")
    .select("monitors.id")
    .where("projects.organization_id", "=", orgId)
    .where("monitors.slug", "=", slug)
    .executeTakeFirst();
  return row !== undefined;
}
