import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { statsV2Response } from "@/src/stats/api";

export const GET = apiRoute(z.object({ org: slugParam }), ({ db, params, url }) =>
  statsV2Response(db, params.org, url.searchParams),
);
