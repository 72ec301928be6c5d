import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { eventAttachmentsResponse } from "@/src/attachments/api";

export const GET = orgApiRoute(
  {
    params: z.object({
      org: slugParam,
      project: slugParam,
      eventId: z.string().regex(/^[0-9a-f]{32}$/),
    }),
    need: "event:read",
  },
  ({ db, params }) => eventAttachmentsResponse(db, params.org, params.project, params.eventId),
);
