import type { Db } from "../../db/connection";
import { type AlertRule, ruleFromRow } from "./model";

/** Reads of rules for the REST API and the pages. */
export async function listProjectRules(db: Db, projectId: number): Promise<AlertRule[]> {
  const rows = await db.kysely
    .selectFrom("alert_rules")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("id")
    .execute();
  return rows.map(ruleFromRow);
}

export async function findRule(
  db: Db,
  projectId: number,
  ruleId: number,
): Promise<AlertRule | undefined> {
  const row = await db.kysely
    .selectFrom("alert_rules")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("id", "=", ruleId)
    .executeTakeFirst();
  return row ? ruleFromRow(row) : undefined;
}

export interface OrgRuleRow {
  rule: AlertRule;
  projectSlug: string;
  projectName: string;
  /** When an outbox row was last written for the rule (its last firing), if ever. */
  lastFired: number | null;
}

/** Every rule of the organization's projects with its last firing, for /[org]/alerts. */
export async function listOrgRules(db: Db, orgId: number): Promise<OrgRuleRow[]> {
  const rows = await db.kysely
    .selectFrom("alert_rules")
    .innerJoin("projects", "projects.id", "alert_rules.project_id")
    .selectAll("alert_rules")
    .select(["projects.slug as project_slug", "projects.name as project_name"])
    .where("alert_rules.organization_id", "=", orgId)
    .orderBy("projects.slug")
    .orderBy("alert_rules.id")
    .execute();
  const ids = rows.map((r) => Number(r.id));
  const last = new Map<number, number>();
  if (ids.length > 0) {
    const fired = await db.kysely
      .selectFrom("alert_outbox")
      .select(["rule_id", (eb) => eb.fn.max("created_at").as("last")])
      .where("rule_id", "in", ids)
      .groupBy("rule_id")
      .execute();
    for (const f of fired) last.set(Number(f.rule_id), Number(f.last));
  }
  return rows.map((r) => ({
    rule: ruleFromRow(r),
    projectSlug: r.project_slug,
    projectName: r.project_name,
    lastFired: last.get(Number(r.id)) ?? null,
  }));
}
