import { z } from "zod";
import { deliveryLogResponse } from "@/src/alerts/delivery/api";
import { orgApiRoute, slugParam } from "@/src/api/handler";

/** A rule's recent deliveries with their attempts: `?rule=<id>`. */
export const GET = orgApiRoute(
  { params: z.object({ org: slugParam, project: slugParam }), need: "alerts:read" },
  ({ db, grant, params, url }) => deliveryLogResponse(db, grant, params.project, url),
);
