import { z } from "zod";
import { projectRulesResponse, ruleResponse, ruleScope } from "@/src/alerts/rules/api";
import { createRule } from "@/src/alerts/rules/mutations";
import { RuleInputSchema } from "@/src/alerts/rules/schemas";
import { jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { apiAuditActor } from "@/src/audit/actor";

const Params = z.object({ org: slugParam, project: slugParam });

export const GET = orgApiRoute({ params: Params, need: "alerts:read" }, ({ db, params, grant }) =>
  projectRulesResponse(db, grant, params.project),
);

export const POST = orgApiRoute(
  { params: Params, need: "alerts:write" },
  async ({ db, params, grant, request }) => {
    const scope = await ruleScope(db, grant, params.project);
    const input = await jsonBody(request, RuleInputSchema);
    const rule = await createRule(db, scope, input, await apiAuditActor(db, grant, request));
    return ruleResponse(rule, scope.projectSlug, true);
  },
);
