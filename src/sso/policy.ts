import type { Kysely } from "kysely";
import { recordAudit } from "../audit/record";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { domainAllowed, type SsoConfig } from "./config";

/**
 * Who an organization's provider may sign in, and what they get:
 *
 * - only addresses of the allowed domains, on every sign-in (a provider account whose email
 *   moved out of them is refused too);
 * - an existing Faultline account is joined to, and signed in by, its provider identity only
 *   while no other organization's access is at stake (it belongs to no other organization):
 *   otherwise an owner could claim a domain, or wait for a user to join elsewhere, and sign
 *   in as someone who works elsewhere;
 * - whoever signs in becomes a member with the configured role, if not one already.
 */
export async function validateSsoUser(
  db: Db,
  config: SsoConfig,
  user: { id?: unknown; email?: unknown },
): Promise<{ error: string; errorDescription: string } | undefined> {
  const email = typeof user.email === "string" ? user.email : undefined;
  if (!domainAllowed(config, email)) {
    return {
      error: "email_domain_not_allowed",
      errorDescription: "This organization's single sign-on does not admit that email address.",
    };
  }
  // Every sign-in of an existing account, not only the first link: a user who joined another
  // organization since must not be signed in by this organization's provider, or its owner,
  // who controls the provider, could sign in as them and read the other organization.
  if (typeof user.id === "string") {
    const elsewhere = await accountsDb(db)
      .selectFrom("members")
      .select("organization_id")
      .where("user_id", "=", user.id)
      .where("organization_id", "!=", config.orgId)
      .executeTakeFirst();
    if (elsewhere) {
      return {
        error: "account_in_other_organization",
        errorDescription:
          "An account with this email belongs to another organization too: sign in with its password.",
      };
    }
  }
  return undefined;
}

export async function grantSsoMembership(db: Db, config: SsoConfig, userId: string): Promise<void> {
  const kdb = accountsDb(db);
  await kdb.transaction().execute(async (trx) => {
    const added = await trx
      .insertInto("members")
      .values({
        organization_id: config.orgId,
        user_id: userId,
        role: config.defaultRole,
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doNothing())
      .returning("user_id")
      .executeTakeFirst();
    if (!added) return;
    const user = await trx
      .selectFrom("user")
      .select("email")
      .where("id", "=", userId)
      .executeTakeFirst();
    await recordAudit(trx as unknown as Kysely<Database>, {
      orgId: config.orgId,
      actor: { userId, label: user?.email ?? userId },
      action: "member.add",
      target: user?.email ?? userId,
      details: { role: config.defaultRole, via: "sso" },
    });
  });
}
