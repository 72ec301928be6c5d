import { z } from "zod";
import { apiRoute } from "@/src/api/handler";
import {
  createPersonalTokenResponse,
  personalTokensResponse,
  revokePersonalTokenResponse,
} from "@/src/tokens/api";

/** The signed-in user's personal tokens (a session only: src/tokens/api.ts). */
const params = z.object({}).optional();

export const GET = apiRoute({ params, need: "org:read" }, ({ db, access, request }) =>
  personalTokensResponse(db, access, request),
);

export const POST = apiRoute({ params, need: "org:read" }, ({ db, access, request }) =>
  createPersonalTokenResponse(db, access, request),
);

export const DELETE = apiRoute({ params, need: "org:read" }, ({ db, access, request }) =>
  revokePersonalTokenResponse(db, access, request),
);
