import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { latestIssueEventResponse } from "@/src/issues/api";

export const GET = apiRoute(z.object({ id: idParam }), ({ db, params }) =>
  latestIssueEventResponse(db, params.id),
);
