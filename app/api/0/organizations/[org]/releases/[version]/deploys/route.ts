import { z } from "zod";
import { apiRoute, jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { createDeploy, listDeploys, NewDeployBody } from "@/src/releases/cli";
import { uploadGrant } from "@/src/sourcemaps/api";

const params = z.object({ org: slugParam, version: z.string().min(1).max(200) });

export const GET = orgApiRoute({ params, need: "project:read" }, ({ db, grant, params }) =>
  listDeploys(db, grant.org.id, params.version),
);

/** `sentry-cli deploys new`. */
export const POST = apiRoute(
  { params, need: "project:releases" },
  async ({ db, access, params, request }) => {
    const grant = await uploadGrant(access, params.org);
    const deploy = await createDeploy(
      db,
      grant.org.id,
      params.version,
      await jsonBody(request, NewDeployBody),
    );
    return Response.json(deploy, { status: 201 });
  },
);
