import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { releaseResponse } from "@/src/releases/api";

export const GET = orgApiRoute(
  {
    params: z.object({ org: slugParam, version: z.string().min(1).max(200) }),
    need: "project:read",
  },
  ({ db, params }) => releaseResponse(db, params.org, params.version),
);
