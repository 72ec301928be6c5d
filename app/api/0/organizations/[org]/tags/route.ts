import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { tagKeysResponse } from "@/src/issues/tags-api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam }), need: "event:read" },
  ({ db, grant, url }) => tagKeysResponse(db, grant, url),
);
