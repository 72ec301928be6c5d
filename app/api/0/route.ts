import { z } from "zod";
import { apiRoute } from "@/src/api/handler";
import { authInfoResponse } from "@/src/tokens/api";

/** Sentry's API root: who the token is (`sentry-cli info` reads it). */
export const GET = apiRoute(
  { params: z.object({}).optional(), need: "org:read" },
  ({ db, access }) => authInfoResponse(db, access),
);
