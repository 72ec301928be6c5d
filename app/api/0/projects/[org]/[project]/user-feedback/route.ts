import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { projectFeedbackResponse } from "@/src/feedback/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam, project: slugParam }), need: "event:read" },
  ({ db, params }) => projectFeedbackResponse(db, params.org, params.project),
);
