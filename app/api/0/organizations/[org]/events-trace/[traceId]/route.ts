import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { traceIdParam, traceResponse } from "@/src/traces/api";

export const GET = apiRoute(z.object({ org: slugParam, traceId: traceIdParam }), ({ db, params }) =>
  traceResponse(db, params.org, params.traceId),
);
