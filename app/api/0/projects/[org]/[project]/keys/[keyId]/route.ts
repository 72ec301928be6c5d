import { z } from "zod";
import { jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { KeyUpdateSchema, updateProjectKey } from "@/src/projects/api";

const Params = z.object({
  org: slugParam,
  project: slugParam,
  keyId: z.string().regex(/^[0-9a-f]{32}$/),
});

export const PUT = orgApiRoute(
  { params: Params, need: "project:write" },
  async ({ db, params, url, request }) =>
    updateProjectKey(
      db,
      params.org,
      params.project,
      params.keyId,
      await jsonBody(request, KeyUpdateSchema),
      url,
    ),
);
