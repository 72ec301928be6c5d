import { headers } from "next/headers";
import { clientIpFromHeaders } from "../auth/client-ip";
import type { OrgContext } from "../auth/with-org";
import type { Actor } from "./members";

/** The acting member of a page or action, as membership changes and the audit log take it. */
export async function orgActor(ctx: OrgContext): Promise<Actor> {
  return {
    userId: ctx.user.id,
    role: ctx.role,
    label: ctx.user.email,
    ip: clientIpFromHeaders(await headers()),
  };
}
