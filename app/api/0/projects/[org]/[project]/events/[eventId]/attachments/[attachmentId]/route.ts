import { z } from "zod";
import { idParam, orgApiRoute, slugParam } from "@/src/api/handler";
import { eventAttachmentResponse } from "@/src/attachments/api";

export const GET = orgApiRoute(
  {
    params: z.object({
      org: slugParam,
      project: slugParam,
      eventId: z.string().regex(/^[0-9a-f]{32}$/),
      attachmentId: idParam,
    }),
    need: "event:read",
  },
  ({ db, params, url }) =>
    eventAttachmentResponse(db, params, url.searchParams.get("download") === "1"),
);
