import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { organizationProjectsResponse } from "@/src/orgs/api";

const params = z.object({ org: slugParam });

export const GET = orgApiRoute({ params, need: "project:read" }, ({ db, grant, url }) =>
  organizationProjectsResponse(db, grant, url),
);
