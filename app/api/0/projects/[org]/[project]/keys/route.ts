import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { projectKeysResponse } from "@/src/projects/api";

export const GET = apiRoute(
  z.object({ org: slugParam, project: slugParam }),
  ({ db, params, url }) => projectKeysResponse(db, params.org, params.project, url),
);
