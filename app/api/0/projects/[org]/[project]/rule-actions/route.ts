import { z } from "zod";
import { testNotificationResponse } from "@/src/alerts/delivery/api";
import { orgApiRoute, slugParam } from "@/src/api/handler";

/** "Send a test notification": `{ruleId}` (the rule's saved actions) or `{actions}` (unsaved). */
export const POST = orgApiRoute(
  { params: z.object({ org: slugParam, project: slugParam }), need: "alerts:write" },
  ({ db, grant, params, request }) => testNotificationResponse(db, grant, params.project, request),
);
