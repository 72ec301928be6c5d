import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { orgMonitorsResponse } from "@/src/monitors/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam }), need: "org:read" },
  ({ db, params }) => orgMonitorsResponse(db, params.org),
);
