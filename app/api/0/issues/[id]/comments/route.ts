import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { commentsResponse, postCommentResponse } from "@/src/issues/activity-api";

const params = z.object({ id: idParam });

export const GET = apiRoute({ params, need: "event:read" }, ({ db, params, access, need }) =>
  commentsResponse(db, access.orgCheck(need), params.id),
);

export const POST = apiRoute(
  { params, need: "event:write" },
  ({ db, params, access, need, request }) =>
    postCommentResponse(db, access.orgCheck(need), params.id, request),
);
