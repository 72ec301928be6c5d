import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { bulkDeleteResponse, bulkUpdateResponse } from "@/src/issues/bulk-api";
import { issuesResponse, parseIssueQuery, projectsOf } from "@/src/issues/search-api";

const params = z.object({ org: slugParam, project: slugParam });

export const GET = orgApiRoute({ params, need: "event:read" }, async ({ db, grant, url, params }) =>
  issuesResponse(
    db,
    grant,
    url,
    parseIssueQuery(url.searchParams),
    (await projectsOf(db, grant.org.id, [params.project])).ids,
  ),
);

export const PUT = orgApiRoute(
  { params, need: "event:write" },
  async ({ db, access, grant, url, request, params }) =>
    bulkUpdateResponse({
      db,
      access,
      grant,
      url,
      request,
      q: parseIssueQuery(url.searchParams),
      projectIds: (await projectsOf(db, grant.org.id, [params.project])).ids,
    }),
);

export const DELETE = orgApiRoute(
  { params, need: "event:admin" },
  async ({ db, access, grant, url, request, params }) =>
    bulkDeleteResponse({
      db,
      access,
      grant,
      url,
      request,
      q: parseIssueQuery(url.searchParams),
      projectIds: (await projectsOf(db, grant.org.id, [params.project])).ids,
    }),
);
