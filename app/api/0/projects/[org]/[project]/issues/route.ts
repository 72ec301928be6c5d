import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { projectIssuesResponse } from "@/src/issues/api";

export const GET = apiRoute(
  z.object({ org: slugParam, project: slugParam }),
  ({ db, params, url }) =>
    projectIssuesResponse(db, params.org, params.project, url.searchParams.get("query")),
);
