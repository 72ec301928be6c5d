import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { tombstonesResponse } from "@/src/issues/hashes-api";
import { projectsOf } from "@/src/issues/search-api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam, project: slugParam }), need: "project:read" },
  async ({ db, grant, params }) => {
    const { ids } = await projectsOf(db, grant.org.id, [params.project]);
    return tombstonesResponse(db, grant.org.id, ids?.[0] ?? -1);
  },
);
