import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { issueEventsResponse } from "@/src/issues/api";

export const GET = apiRoute(z.object({ id: idParam }), ({ db, params }) =>
  issueEventsResponse(db, params.id),
);
