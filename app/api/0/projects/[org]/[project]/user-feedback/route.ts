import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { projectFeedbackResponse } from "@/src/feedback/api";

export const GET = apiRoute(z.object({ org: slugParam, project: slugParam }), ({ db, params }) =>
  projectFeedbackResponse(db, params.org, params.project),
);
