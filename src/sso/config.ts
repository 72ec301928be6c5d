import { sql } from "kysely";
import { z } from "zod";
import { recordAudit } from "../audit/record";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { type Actor, appTables } from "../orgs/members";
import { checkIssuer } from "./discovery";

/**
 * An organization's single sign-on: one OpenID Connect provider (issuer, client id and
 * secret), the email domains it may sign people in for, the role of those it adds, and
 * whether members other than owners must use it. Set by an owner; the secret is never shown
 * again once saved.
 */
export interface SsoConfig {
  orgId: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string[];
  defaultRole: "admin" | "member" | "viewer";
  required: boolean;
  updatedAt: number;
}

/** The id better-auth knows the provider by; it names the callback path too. */
export function ssoProviderId(orgId: number): string {
  return `sso-${orgId}`;
}

export function orgIdOfProvider(providerId: string): number | null {
  const m = /^sso-([1-9]\d{0,14})$/.exec(providerId);
  return m ? Number(m[1]) : null;
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const ssoSettingsSchema = z.object({
  issuer: z
    .string()
    .trim()
    .max(500)
    .refine(
      (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol),
      "Enter the issuer's URL (https://…)",
    )
    .transform((v) => v.replace(/\/+$/, "")),
  clientId: z.string().trim().min(1, "Enter the client id").max(500),
  /** Empty keeps the saved secret. */
  clientSecret: z.string().trim().max(2000),
  allowedDomains: z
    .string()
    .max(2000)
    .transform((v) =>
      v
        .split(/[\s,]+/)
        .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().regex(DOMAIN, "Enter domains like example.com"))
        .min(1, "Name at least one email domain")
        .max(50),
    ),
  defaultRole: z.enum(["admin", "member", "viewer"], "Choose a role"),
  required: z
    .string()
    .optional()
    .transform((v) => v === "on" || v === "1"),
});
export type SsoSettingsInput = z.infer<typeof ssoSettingsSchema>;

export async function loadSsoConfig(db: Db, orgId: number): Promise<SsoConfig | null> {
  const row = await db.kysely
    .selectFrom("sso_providers")
    .selectAll()
    .where("organization_id", "=", orgId)
    .executeTakeFirst();
  return row ? toConfig(row) : null;
}

function toConfig(row: {
  organization_id: number;
  issuer: string;
  client_id: string;
  client_secret: string;
  allowed_domains: string;
  default_role: "admin" | "member" | "viewer";
  required: number;
  updated_at: number;
}): SsoConfig {
  let domains: string[] = [];
  try {
    const parsed = JSON.parse(row.allowed_domains) as unknown;
    if (Array.isArray(parsed)) domains = parsed.filter((d): d is string => typeof d === "string");
  } catch {
    // An unreadable list allows nobody.
  }
  return {
    orgId: Number(row.organization_id),
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: row.client_secret,
    allowedDomains: domains,
    defaultRole: row.default_role,
    required: Number(row.required) === 1,
    updatedAt: Number(row.updated_at),
  };
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

export function domainAllowed(config: SsoConfig, email: string | undefined | null): boolean {
  return typeof email === "string" && email.includes("@")
    ? config.allowedDomains.includes(emailDomain(email))
    : false;
}

/**
 * Saves the settings after checking that the issuer answers OpenID discovery for itself.
 * Turning "required" on ends the sessions of members other than owners, so everyone signs
 * in again through the provider.
 */
export async function saveSsoConfig(
  db: Db,
  orgId: number,
  actor: Actor,
  input: SsoSettingsInput,
  now = Date.now(),
): Promise<void> {
  const existing = await loadSsoConfig(db, orgId);
  const clientSecret = input.clientSecret || existing?.clientSecret;
  if (!clientSecret) throw new AppError("bad_request", "Enter the client secret");
  await checkIssuer(input.issuer);
  const values = {
    issuer: input.issuer,
    client_id: input.clientId,
    client_secret: clientSecret,
    allowed_domains: JSON.stringify(input.allowedDomains),
    default_role: input.defaultRole,
    required: input.required ? 1 : 0,
    // Strictly increasing: it is what tells every process to rebuild its provider.
    updated_at: Math.max(now, (existing?.updatedAt ?? 0) + 1),
  };
  await accountsDb(db)
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("sso_providers")
        .values({ organization_id: orgId, created_at: now, ...values })
        .onConflict((oc) => oc.column("organization_id").doUpdateSet(values))
        .execute();
      if (input.required && !existing?.required) {
        // better-auth's session table (camelCase columns, not in our schema types).
        await sql`delete from "session" where "userId" in (select user_id from members where organization_id = ${orgId} and role <> 'owner')`.execute(
          trx,
        );
      }
      await recordAudit(appTables(trx), {
        orgId,
        actor: { userId: actor.userId, label: actor.label ?? actor.userId, ip: actor.ip },
        action: "sso.update",
        target: input.issuer,
        details: {
          clientId: input.clientId,
          secretChanged: input.clientSecret !== "",
          allowedDomains: input.allowedDomains,
          defaultRole: input.defaultRole,
          required: input.required,
        },
      });
    });
}

export async function deleteSsoConfig(db: Db, orgId: number, actor: Actor): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom("sso_providers")
      .where("organization_id", "=", orgId)
      .returning("issuer")
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "no single sign-on is set up");
    await recordAudit(trx, {
      orgId,
      actor: { userId: actor.userId, label: actor.label ?? actor.userId, ip: actor.ip },
      action: "sso.delete",
      target: row.issuer,
    });
  });
}

/** Whether any organization has single sign-on (else the sign-in page does not offer it). */
export async function anySsoConfigured(db: Db): Promise<boolean> {
  const row = await db.kysely
    .selectFrom("sso_providers")
    .select("organization_id")
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The organizations whose single sign-on accepts this email's domain (for "Sign in with SSO"). */
export async function ssoOrgsForEmail(
  db: Db,
  email: string,
): Promise<{ orgId: number; slug: string; name: string }[]> {
  const domain = emailDomain(email);
  const rows = await db.kysely
    .selectFrom("sso_providers")
    .innerJoin("organizations", "organizations.id", "sso_providers.organization_id")
    .select([
      "organizations.id",
      "organizations.slug",
      "organizations.name",
      "sso_providers.allowed_domains",
    ])
    .execute();
  return rows
    .filter((r) => {
      try {
        return (JSON.parse(r.allowed_domains) as unknown[]).includes(domain);
      } catch {
        return false;
      }
    })
    .map((r) => ({ orgId: Number(r.id), slug: r.slug, name: r.name }));
}

/**
 * Whether this user may not sign in with a password: a member (other than an owner) of an
 * organization that requires single sign-on. Owners keep the password, so a broken identity
 * provider cannot lock an organization out.
 */
export async function passwordRefusedBySso(db: Db, userId: string): Promise<boolean> {
  const row = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("sso_providers", "sso_providers.organization_id", "members.organization_id")
    .select("members.organization_id")
    .where("members.user_id", "=", userId)
    .where("members.role", "!=", "owner")
    .where("sso_providers.required", "=", 1)
    .executeTakeFirst();
  return row !== undefined;
}
