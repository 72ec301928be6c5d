import { z } from "zod";
import { apiRoute, jsonBody, slugParam } from "@/src/api/handler";
import { AppError } from "@/src/errors";
import { cliRelease, UpdateReleaseBody, updateRelease } from "@/src/releases/cli";
import { uploadGrant } from "@/src/sourcemaps/api";

const params = z.object({
  org: slugParam,
  project: slugParam,
  version: z.string().min(1).max(200),
});

export const GET = apiRoute({ params, need: "project:read" }, async ({ db, access, params }) => {
  const grant = await access.org(params.org, "project:read");
  const release = await cliRelease(db, grant.org.id, params.version);
  if (!release?.projects.some((p) => p.slug === params.project)) {
    throw new AppError("not_found", "release not found");
  }
  return release;
});

/** `sentry-cli releases finalize` with a project (2.x). */
export const PUT = apiRoute(
  { params, need: "project:releases" },
  async ({ db, access, params, request }) => {
    const grant = await uploadGrant(access, params.org);
    const body = await jsonBody(request, UpdateReleaseBody);
    return updateRelease(db, grant.org.id, params.version, {
      ...body,
      projects: [...new Set([params.project, ...(body.projects ?? [])])],
    });
  },
);
