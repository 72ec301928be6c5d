import { type AnyDb, withId } from "./helpers";

/**
 * API tokens (src/tokens/): organization auth tokens (`sntrys_…`, one organization, scope
 * org:ci) and personal tokens (`sntryu_…`, a user's, with chosen scopes). Only the SHA-256 of
 * a token is kept; the token itself is shown once. A revoked token keeps its row, so the list
 * and the audit log can still name it.
 */
export async function up(db: AnyDb): Promise<void> {
  await withId(db, db.schema.createTable("api_tokens"))
    /** "org" | "user". */
    .addColumn("kind", "text", (c) => c.notNull())
    /** The organization of an organization token; null for a personal token. */
    .addColumn("organization_id", "bigint")
    /** The owner of a personal token; the creator of an organization token. */
    .addColumn("user_id", "text")
    .addColumn("name", "text", (c) => c.notNull())
    /** Hex SHA-256 of the whole token. */
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    /** The token's last four characters, so a person can tell tokens apart. */
    .addColumn("token_last_characters", "text", (c) => c.notNull())
    /** Space-separated scopes. */
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint")
    /** Written at most once a minute per token (src/tokens/authenticate.ts). */
    .addColumn("last_used_at", "bigint")
    .addColumn("revoked_at", "bigint")
    .execute();
  await db.schema
    .createIndex("api_tokens_org")
    .on("api_tokens")
    .columns(["organization_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("api_tokens_user")
    .on("api_tokens")
    .columns(["user_id", "created_at"])
    .execute();
}
