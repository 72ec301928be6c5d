import type { OrgGrant } from "../api/access";
import { clientIpFromHeaders } from "../auth/client-ip";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { AuditActor } from "./record";

/** The audit actor of a signed-in user's page or action; `headers` carry the client address. */
export function userActor(user: { id: string; email: string }, headers: Headers): AuditActor {
  return { userId: user.id, label: user.email, ip: clientIpFromHeaders(headers) };
}

/** The audit actor of an API call: the user, an organization token, or the operator. */
export function apiActor(grant: OrgGrant, request: Request, userEmail?: string): AuditActor {
  const ip = clientIpFromHeaders(request.headers);
  const p = grant.principal;
  if (p.kind === "operator") return { userId: null, label: "operator (FAULTLINE_API_TOKEN)", ip };
  if (p.kind === "org_token") return { userId: null, label: `organization token ${p.tokenId}`, ip };
  const via = p.via === "token" ? ` (token ${p.tokenId ?? ""})` : "";
  return { userId: p.userId, label: `${userEmail ?? p.userId}${via}`, ip };
}

/** apiActor with the acting user's email looked up. */
export async function apiAuditActor(
  db: Db,
  grant: OrgGrant,
  request: Request,
): Promise<AuditActor> {
  const email =
    grant.userId === null
      ? undefined
      : (
          await accountsDb(db)
            .selectFrom("user")
            .select("email")
            .where("id", "=", grant.userId)
            .executeTakeFirst()
        )?.email;
  return apiActor(grant, request, email);
}
