import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { bulkDeleteResponse, bulkUpdateResponse } from "@/src/issues/bulk-api";
import { issuesResponse, parseIssueQuery } from "@/src/issues/search-api";

const params = z.object({ org: slugParam });

export const GET = orgApiRoute({ params, need: "event:read" }, ({ db, grant, url }) =>
  issuesResponse(db, grant, url, parseIssueQuery(url.searchParams)),
);

export const PUT = orgApiRoute(
  { params, need: "event:write" },
  ({ db, access, grant, url, request }) =>
    bulkUpdateResponse({ db, access, grant, url, request, q: parseIssueQuery(url.searchParams) }),
);

export const DELETE = orgApiRoute(
  { params, need: "event:admin" },
  ({ db, access, grant, url, request }) =>
    bulkDeleteResponse({ db, access, grant, url, request, q: parseIssueQuery(url.searchParams) }),
);
