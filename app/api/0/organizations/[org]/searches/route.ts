import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { createSavedSearchResponse, savedSearchesResponse } from "@/src/issues/saved-searches-api";

const params = z.object({ org: slugParam });

export const GET = orgApiRoute({ params, need: "org:read" }, ({ db, grant }) =>
  savedSearchesResponse(db, grant),
);

export const POST = orgApiRoute({ params, need: "org:read" }, ({ db, access, grant, request }) =>
  createSavedSearchResponse(db, access, grant, request),
);
