import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { createOrgTokenResponse, orgTokensResponse } from "@/src/tokens/api";

const params = z.object({ org: slugParam });

export const GET = orgApiRoute({ params, need: "org:read" }, ({ db, grant }) =>
  orgTokensResponse(db, grant),
);

/** org:write: an admin's or owner's session (or the operator); no token mints another. */
export const POST = orgApiRoute({ params, need: "org:write" }, ({ db, grant, request }) =>
  createOrgTokenResponse(db, grant, request),
);
