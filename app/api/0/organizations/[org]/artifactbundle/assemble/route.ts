import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { assembleRequest, uploadGrant } from "@/src/sourcemaps/api";

export const POST = apiRoute(
  { params: z.object({ org: slugParam }), need: "project:releases" },
  async ({ db, access, params, request }) =>
    assembleRequest(db, await uploadGrant(access, params.org), request),
);
