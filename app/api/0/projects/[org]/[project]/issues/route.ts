import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { projectIssuesResponse } from "@/src/issues/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam, project: slugParam }), need: "event:read" },
  ({ db, params, url }) =>
    projectIssuesResponse(db, params.org, params.project, url.searchParams.get("query")),
);
