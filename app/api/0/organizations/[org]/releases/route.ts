import { z } from "zod";
import { apiRoute, jsonBody, slugParam } from "@/src/api/handler";
import { createRelease, NewReleaseBody } from "@/src/releases/cli";
import { uploadGrant } from "@/src/sourcemaps/api";

/** `sentry-cli releases new`: 201 when created, 208 when it already existed (as Sentry). */
export const POST = apiRoute(
  { params: z.object({ org: slugParam }), need: "project:releases" },
  async ({ db, access, params, request }) => {
    const grant = await uploadGrant(access, params.org);
    const { status, release } = await createRelease(
      db,
      grant.org.id,
      await jsonBody(request, NewReleaseBody),
    );
    return Response.json(release, { status });
  },
);
