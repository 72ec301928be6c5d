import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { eventAttachmentsResponse } from "@/src/attachments/api";

export const GET = apiRoute(
  z.object({ org: slugParam, project: slugParam, eventId: z.string().regex(/^[0-9a-f]{32}$/) }),
  ({ db, params }) => eventAttachmentsResponse(db, params.org, params.project, params.eventId),
);
