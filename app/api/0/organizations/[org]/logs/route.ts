import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { logsResponse, parseLogsQuery } from "@/src/logs/api";

export const GET = apiRoute(z.object({ org: slugParam }), ({ db, params, url }) =>
  logsResponse(db, params.org, parseLogsQuery(url.searchParams)),
);
