import { z } from "zod";
import { jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { apiAuditActor } from "@/src/audit/actor";
import { KeyUpdateSchema, updateProjectKey } from "@/src/projects/api";

const Params = z.object({
  org: slugParam,
  project: slugParam,
  keyId: z.string().regex(/^[0-9a-f]{32}$/),
});

export const PUT = orgApiRoute(
  { params: Params, need: "project:write" },
  async ({ db, params, url, request, grant }) =>
    updateProjectKey(
      db,
      params.org,
      params.project,
      params.keyId,
      await jsonBody(request, KeyUpdateSchema),
      url,
      { orgId: grant.org.id, actor: await apiAuditActor(db, grant, request) },
    ),
);
