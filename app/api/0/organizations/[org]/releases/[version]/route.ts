import { z } from "zod";
import { apiRoute, jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { releaseResponse } from "@/src/releases/api";
import { UpdateReleaseBody, updateRelease } from "@/src/releases/cli";
import { uploadGrant } from "@/src/sourcemaps/api";

const params = z.object({ org: slugParam, version: z.string().min(1).max(200) });

export const GET = orgApiRoute({ params, need: "project:read" }, ({ db, params }) =>
  releaseResponse(db, params.org, params.version),
);

/** `sentry-cli releases finalize` sends `dateReleased`. */
export const PUT = apiRoute(
  { params, need: "project:releases" },
  async ({ db, access, params, request }) => {
    const grant = await uploadGrant(access, params.org);
    return updateRelease(
      db,
      grant.org.id,
      params.version,
      await jsonBody(request, UpdateReleaseBody),
    );
  },
);
