import { z } from "zod";
import { projectRuleResponse, ruleResponse, ruleScope } from "@/src/alerts/rules/api";
import { deleteRule, updateRule } from "@/src/alerts/rules/mutations";
import { RuleInputSchema } from "@/src/alerts/rules/schemas";
import { idParam, jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { apiAuditActor } from "@/src/audit/actor";

const Params = z.object({ org: slugParam, project: slugParam, ruleId: idParam });

export const GET = orgApiRoute({ params: Params, need: "alerts:read" }, ({ db, params, grant }) =>
  projectRuleResponse(db, grant, params.project, params.ruleId),
);

export const PUT = orgApiRoute(
  { params: Params, need: "alerts:write" },
  async ({ db, params, grant, request }) => {
    const scope = await ruleScope(db, grant, params.project);
    const input = await jsonBody(request, RuleInputSchema);
    const actor = await apiAuditActor(db, grant, request);
    const rule = await updateRule(db, scope, params.ruleId, input, actor);
    return ruleResponse(rule, scope.projectSlug, true);
  },
);

export const DELETE = orgApiRoute(
  { params: Params, need: "alerts:write" },
  async ({ db, params, grant, request }) => {
    const scope = await ruleScope(db, grant, params.project);
    await deleteRule(db, scope, params.ruleId, await apiAuditActor(db, grant, request));
    return new Response(null, { status: 202 });
  },
);
