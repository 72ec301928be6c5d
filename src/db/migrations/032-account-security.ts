import type { AnyDb } from "./helpers";

/**
 * Accounts a security review passes (issue 32). Password reset links: one row per link sent,
 * keyed by the SHA-256 of its token, so the database never holds a usable link. A link is
 * spent by setting `used_at` in the same statement that checks it, so two tabs cannot both
 * use it.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("password_resets")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();
  await db.schema
    .createIndex("password_resets_user")
    .on("password_resets")
    .column("user_id")
    .execute();
  /**
   * Accounts the operator switched off (`npm run admin -- users disable`): no new session is
   * made for them (better-auth's session hook, src/auth/auth.ts). A table of its own rather
   * than a column, because better-auth owns `user`.
   */
  await db.schema
    .createTable("disabled_users")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("user.id").onDelete("cascade"))
    .addColumn("disabled_at", "bigint", (c) => c.notNull())
    .execute();
  /**
   * Growing lockouts for the sign-in limits (src/auth/rate-limit.ts): how many times the key
   * was locked out, and until when the current lockout lasts. Each lockout is twice as long
   * as the one before, so a patient guesser gets fewer tries a day, not 5 every 15 minutes.
   */
  await db.schema
    .alterTable("auth_rate_limits")
    .addColumn("lockouts", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("auth_rate_limits").addColumn("locked_until", "bigint").execute();
}
