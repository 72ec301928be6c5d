import { z } from "zod";
import { idParam, orgApiRoute, slugParam } from "@/src/api/handler";
import { removeTombstoneResponse } from "@/src/issues/hashes-api";

export const DELETE = orgApiRoute(
  { params: z.object({ org: slugParam, project: slugParam, id: idParam }), need: "event:admin" },
  ({ db, access, params }) => removeTombstoneResponse(db, access, params.org, params.id),
);
