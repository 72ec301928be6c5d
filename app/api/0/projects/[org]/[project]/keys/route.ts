import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { projectKeysResponse } from "@/src/projects/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam, project: slugParam }), need: "project:read" },
  ({ db, params, url }) => projectKeysResponse(db, params.org, params.project, url),
);
