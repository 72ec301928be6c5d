import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { latestIssueEventResponse } from "@/src/issues/api";

export const GET = apiRoute(
  { params: z.object({ id: idParam }), need: "event:read" },
  ({ db, params, access, need }) => latestIssueEventResponse(db, access.orgCheck(need), params.id),
);
