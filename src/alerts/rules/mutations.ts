import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { type AuditActor, recordAudit } from "../../audit/record";
import type { Db } from "../../db/connection";
import type { Database } from "../../db/schema";
import { AppError } from "../../errors";
import { isOnCallAction, storeOnCallAction } from "../delivery/oncall-actions";
import { rulesChanged } from "./cache";
import { type AlertRule, ruleFromRow } from "./model";
import { ACTION, CONDITION, type RuleInput } from "./schemas";

/**
 * Creating, changing and deleting a project's rules, each with its audit entry in the same
 * transaction; every change clears the worker's rule cache (cache.ts).
 */
export interface RuleScope {
  orgId: number;
  projectId: number;
  projectSlug: string;
}

/** What a new project starts with, as Sentry does: a new issue emails the members. */
export const DEFAULT_RULE: RuleInput = {
  name: "Send a notification for new issues",
  environment: null,
  actionMatch: "all",
  filterMatch: "all",
  frequency: 30,
  conditions: [{ id: CONDITION.firstSeen }],
  filters: [],
  actions: [{ id: ACTION.email, targetType: "AllMembers" }],
};

export async function insertDefaultRule(
  trx: Kysely<Database>,
  project: { organizationId: number; projectId: number },
): Promise<void> {
  await insertRule(trx, project.organizationId, project.projectId, DEFAULT_RULE, null);
}

async function insertRule(
  trx: Kysely<Database>,
  orgId: number,
  projectId: number,
  input: RuleInput,
  createdBy: string | null,
): Promise<AlertRule> {
  const now = Date.now();
  const row = await trx
    .insertInto("alert_rules")
    .values({
      organization_id: orgId,
      project_id: projectId,
      ...columns(input),
      secret: randomBytes(32).toString("hex"),
      created_by: createdBy,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return ruleFromRow(row);
}

function columns(input: RuleInput) {
  return {
    name: input.name,
    environment: input.environment,
    action_match: input.actionMatch,
    filter_match: input.filterMatch,
    frequency: input.frequency,
    conditions: JSON.stringify(input.conditions),
    filters: JSON.stringify(input.filters),
    actions: JSON.stringify(input.actions),
  };
}

export async function createRule(
  db: Db,
  scope: RuleScope,
  input: RuleInput,
  actor: AuditActor,
): Promise<AlertRule> {
  input = { ...input, actions: await sealActions(db, input.actions, []) };
  const rule = await db.kysely.transaction().execute(async (trx) => {
    const rule = await insertRule(trx, scope.orgId, scope.projectId, input, actor.userId);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: "alert_rule.create",
      target: `${scope.projectSlug}: ${input.name}`,
      details: { ruleId: rule.id },
    });
    return rule;
  });
  rulesChanged(scope.projectId);
  return rule;
}

export async function updateRule(
  db: Db,
  scope: RuleScope,
  ruleId: number,
  input: RuleInput,
  actor: AuditActor,
): Promise<AlertRule> {
  const saved = await db.kysely
    .selectFrom("alert_rules")
    .select("actions")
    .where("id", "=", ruleId)
    .where("project_id", "=", scope.projectId)
    .executeTakeFirst();
  input = { ...input, actions: await sealActions(db, input.actions, saved?.actions) };
  const rule = await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("alert_rules")
      .set({ ...columns(input), updated_at: Date.now() })
      .where("id", "=", ruleId)
      .where("project_id", "=", scope.projectId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "rule not found");
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: "alert_rule.update",
      target: `${scope.projectSlug}: ${input.name}`,
      details: { ruleId },
    });
    return ruleFromRow(row);
  });
  rulesChanged(scope.projectId);
  return rule;
}

export async function deleteRule(
  db: Db,
  scope: RuleScope,
  ruleId: number,
  actor: AuditActor,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom("alert_rules")
      .where("id", "=", ruleId)
      .where("project_id", "=", scope.projectId)
      .returning(["id", "name"])
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "rule not found");
    await trx.deleteFrom("alert_rule_fires").where("rule_id", "=", ruleId).execute();
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: "alert_rule.delete",
      target: `${scope.projectSlug}: ${row.name}`,
      details: { ruleId },
    });
  });
  rulesChanged(scope.projectId);
}

/**
 * On-call actions checked and their credentials sealed (oncall-actions.ts); a credential left
 * blank keeps the one saved at the same place before.
 */
async function sealActions(
  db: Db,
  actions: RuleInput["actions"],
  savedJson: string | readonly unknown[] | undefined,
): Promise<RuleInput["actions"]> {
  let saved: unknown[] = [];
  try {
    saved =
      typeof savedJson === "string" ? (JSON.parse(savedJson) as unknown[]) : [...(savedJson ?? [])];
  } catch {}
  const out: RuleInput["actions"] = [];
  for (const [i, action] of actions.entries()) {
    if (!isOnCallAction(action)) {
      out.push(action);
      continue;
    }
    const before = saved[i];
    const stored = await storeOnCallAction(
      db,
      action,
      before && typeof before === "object" ? (before as Record<string, unknown>) : undefined,
      `actions.${i}`,
    );
    out.push(stored as RuleInput["actions"][number]);
  }
  return out;
}
