import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { auditLogResponse } from "@/src/audit/api";
import { auditQuerySchema } from "@/src/audit/queries";
import { AppError } from "@/src/errors";

/** Admins and owners only: org:write is what their roles grant (src/auth/permissions.ts). */
export const GET = orgApiRoute(
  { params: z.object({ org: slugParam }), need: "org:write" },
  ({ db, grant, url }) => {
    const q = auditQuerySchema.safeParse(Object.fromEntries(url.searchParams));
    if (!q.success) {
      const issue = q.error.issues[0];
      throw new AppError("bad_request", `${issue?.path.join(".") || "query"}: ${issue?.message}`);
    }
    return auditLogResponse(db, grant.org.id, q.data, url);
  },
);
