import { z } from "zod";
import { apiRoute, idParam } from "@/src/api/handler";
import { deleteCommentResponse, putCommentResponse } from "@/src/issues/activity-api";

const params = z.object({ id: idParam, commentId: idParam });

export const PUT = apiRoute(
  { params, need: "event:write" },
  ({ db, params, access, need, request }) =>
    putCommentResponse(db, access.orgCheck(need), params.id, params.commentId, request),
);

export const DELETE = apiRoute({ params, need: "event:write" }, ({ db, params, access, need }) =>
  deleteCommentResponse(db, access.orgCheck(need), params.id, params.commentId),
);
