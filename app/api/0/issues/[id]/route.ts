import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { issueResponse } from "@/src/issues/api";

export const GET = apiRoute(z.object({ id: idParam }), ({ db, params }) =>
  issueResponse(db, params.id),
);
