import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { organizationDetailResponse } from "@/src/orgs/api";

const params = z.object({ org: slugParam });

export const GET = orgApiRoute({ params, need: "org:read" }, ({ db, grant, request }) =>
  organizationDetailResponse(db, grant, request),
);
