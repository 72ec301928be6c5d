import type { OrgGrant } from "../../api/access";
import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import { findProjectBySlugs } from "../../projects/queries";
import { publicAction } from "../delivery/oncall-actions";
import type { AlertRule } from "./model";
import type { RuleScope } from "./mutations";
import { findRule, listProjectRules } from "./queries";

/** The REST shape of a rule, as Sentry's project rules endpoint answers. */
export function ruleResponse(rule: AlertRule, projectSlug: string, canWrite: boolean) {
  return {
    id: String(rule.id),
    name: rule.name,
    environment: rule.environment,
    actionMatch: rule.actionMatch,
    filterMatch: rule.filterMatch,
    frequency: rule.frequency,
    conditions: rule.conditions,
    filters: rule.filters,
    // An on-call action's credentials are never returned (oncall-actions.ts).
    actions: rule.actions.map((a) => publicAction(a)),
    projects: [projectSlug],
    status: rule.status,
    createdBy: rule.createdBy ? { id: rule.createdBy } : null,
    dateCreated: new Date(rule.createdAt).toISOString(),
    dateModified: new Date(rule.updatedAt).toISOString(),
    /** The generic webhook's signing key: shown to those who may change the rule. */
    ...(canWrite ? { secret: rule.secret } : {}),
  };
}

export function canWriteRules(grant: OrgGrant): boolean {
  return grant.role === null || grant.role === "owner" || grant.role === "admin";
}

export async function ruleScope(db: Db, grant: OrgGrant, projectSlug: string): Promise<RuleScope> {
  const project = await findProjectBySlugs(db, grant.org.slug, projectSlug);
  if (!project || Number(project.organizationId) !== grant.org.id)
    throw new AppError("not_found", "project not found");
  return { orgId: grant.org.id, projectId: Number(project.id), projectSlug: project.slug };
}

export async function projectRulesResponse(db: Db, grant: OrgGrant, projectSlug: string) {
  const scope = await ruleScope(db, grant, projectSlug);
  const rules = await listProjectRules(db, scope.projectId);
  return rules.map((r) => ruleResponse(r, scope.projectSlug, canWriteRules(grant)));
}

export async function projectRuleResponse(
  db: Db,
  grant: OrgGrant,
  projectSlug: string,
  ruleId: number,
) {
  const scope = await ruleScope(db, grant, projectSlug);
  const rule = await findRule(db, scope.projectId, ruleId);
  if (!rule) throw new AppError("not_found", "rule not found");
  return ruleResponse(rule, scope.projectSlug, canWriteRules(grant));
}
