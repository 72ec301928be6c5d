import { z } from "zod";
import { idParam, orgApiRoute, slugParam } from "@/src/api/handler";
import { deleteSavedSearchResponse } from "@/src/issues/saved-searches-api";

export const DELETE = orgApiRoute(
  { params: z.object({ org: slugParam, id: idParam }), need: "org:read" },
  ({ db, access, grant, params }) => deleteSavedSearchResponse(db, access, grant, params.id),
);
