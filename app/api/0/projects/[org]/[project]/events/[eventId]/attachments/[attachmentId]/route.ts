import { z } from "zod";
import { apiRoute, idParam, slugParam } from "@/src/api/handler";
import { eventAttachmentResponse } from "@/src/attachments/api";

export const GET = apiRoute(
  z.object({
    org: slugParam,
    project: slugParam,
    eventId: z.string().regex(/^[0-9a-f]{32}$/),
    attachmentId: idParam,
  }),
  ({ db, params, url }) =>
    eventAttachmentResponse(db, params, url.searchParams.get("download") === "1"),
);
