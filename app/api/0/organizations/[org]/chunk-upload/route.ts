import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { chunkUploadOptions, uploadChunks, uploadGrant } from "@/src/sourcemaps/api";

const params = z.object({ org: slugParam });

export const GET = apiRoute(
  { params, need: "project:releases" },
  async ({ access, params, request }) => {
    const grant = await uploadGrant(access, params.org);
    return chunkUploadOptions(request, grant.org.slug);
  },
);

export const POST = apiRoute(
  { params, need: "project:releases" },
  async ({ db, access, params, request }) =>
    uploadChunks(db, await uploadGrant(access, params.org), request),
);
