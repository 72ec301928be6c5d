import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { activitiesResponse } from "@/src/issues/activity-api";

export const GET = apiRoute(
  { params: z.object({ id: idParam }), need: "event:read" },
  ({ db, params, access, need }) => activitiesResponse(db, access.orgCheck(need), params.id),
);
