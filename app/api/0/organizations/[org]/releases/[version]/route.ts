import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { releaseResponse } from "@/src/releases/api";

export const GET = apiRoute(
  z.object({ org: slugParam, version: z.string().min(1).max(200) }),
  ({ db, params }) => releaseResponse(db, params.org, params.version),
);
