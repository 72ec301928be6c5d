import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { issueEventsResponse } from "@/src/issues/api";

export const GET = apiRoute(
  { params: z.object({ id: idParam }), need: "event:read" },
  ({ db, params, access, need }) => issueEventsResponse(db, access.orgCheck(need), params.id),
);
