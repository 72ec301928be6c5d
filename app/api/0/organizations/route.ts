import { z } from "zod";
import { apiRoute } from "@/src/api/handler";
import { createOrganizationResponse, listOrganizationsResponse } from "@/src/orgs/api";

const params = z.object({}).optional();

/** Any valid credential: each sees only its own organizations (a token: the one it is of). */
export const GET = apiRoute({ params, need: "org:read" }, ({ db, access, request }) =>
  listOrganizationsResponse(db, access, request),
);

/** A user creates an organization, if the instance's policy lets them (src/instance/policy.ts). */
export const POST = apiRoute({ params, need: "org:write" }, ({ db, access, request }) =>
  createOrganizationResponse(db, access, request),
);
