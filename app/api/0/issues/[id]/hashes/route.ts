import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { issueHashesResponse, unmergeResponse } from "@/src/issues/hashes-api";

const params = z.object({ id: idParam });

export const GET = apiRoute({ params, need: "event:read" }, ({ db, access, params }) =>
  issueHashesResponse(db, access, params.id),
);

export const DELETE = apiRoute({ params, need: "event:write" }, ({ db, access, params, url }) =>
  unmergeResponse(db, access, params.id, url),
);
