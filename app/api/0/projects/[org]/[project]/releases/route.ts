import { z } from "zod";
import { apiRoute, jsonBody, slugParam } from "@/src/api/handler";
import { createRelease, NewReleaseBody } from "@/src/releases/cli";
import { uploadGrant } from "@/src/sourcemaps/api";

/** `sentry-cli releases new --project <p>` (2.x) posts here: the project is in the path. */
export const POST = apiRoute(
  { params: z.object({ org: slugParam, project: slugParam }), need: "project:releases" },
  async ({ db, access, params, request }) => {
    const grant = await uploadGrant(access, params.org);
    const body = await jsonBody(request, NewReleaseBody);
    const { status, release } = await createRelease(db, grant.org.id, {
      ...body,
      projects: [...new Set([params.project, ...body.projects])],
    });
    return Response.json(release, { status });
  },
);
