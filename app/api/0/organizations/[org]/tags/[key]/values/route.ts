import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { tagValuesResponse } from "@/src/issues/tags-api";

export const GET = orgApiRoute(
  {
    params: z.object({ org: slugParam, key: z.string().regex(/^[A-Za-z0-9_.-]{1,32}$/) }),
    need: "event:read",
  },
  ({ db, grant, params, url }) => tagValuesResponse(db, grant, params.key, url),
);
