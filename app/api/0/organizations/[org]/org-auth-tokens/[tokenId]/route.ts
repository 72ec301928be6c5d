import { z } from "zod";
import { idParam, orgApiRoute, slugParam } from "@/src/api/handler";
import { revokeOrgTokenResponse } from "@/src/tokens/api";

const params = z.object({ org: slugParam, tokenId: idParam });

export const DELETE = orgApiRoute({ params, need: "org:write" }, ({ db, grant, request, params }) =>
  revokeOrgTokenResponse(db, grant, request, params.tokenId),
);
