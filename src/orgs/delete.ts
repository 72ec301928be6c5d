import type { AuditActor } from "../audit/record";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { invalidateKeyCaches } from "../ingest/accept/auth";

/**
 * Deleting an organization, step one (its owner, after typing the slug): in one transaction it
 * becomes `deleting`, its members go (so every page and API call of it is a 404 for everyone,
 * and the operator's and tokens' lookups skip `deleting`), its DSN keys are disabled (403 from
 * ingest: this process at once, others within their key cache's TTL), and the instance's audit
 * log records it. Its data goes in the worker's batches (src/maintenance/org-deletion.ts).
 */
export async function requestOrgDeletion(
  db: Db,
  org: { id: number; slug: string },
  confirmation: string,
  actor: AuditActor,
): Promise<void> {
  if (confirmation.trim() !== org.slug)
    throw new AppError(
      "bad_request",
      `confirm: type the organization's address "${org.slug}" to delete it`,
    );
  const keys = await db.kysely.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable("organizations")
      .set({ status: "deleting" })
      .where("id", "=", org.id)
      .where("status", "=", "active")
      .executeTakeFirst();
    // Deleted already (by someone else a moment ago): as for any organization that is gone.
    if (Number(marked.numUpdatedRows) === 0)
      throw new AppError("not_found", "organization not found");
    const projectIds = trx
      .selectFrom("projects")
      .select("id")
      .where("organization_id", "=", org.id);
    const keys = await trx
      .updateTable("project_keys")
      .set({ enabled: 0 })
      .where("project_id", "in", projectIds)
      .returning("public_key")
      .execute();
    await trx
      .withTables<{ members: { organization_id: number } }>()
      .deleteFrom("members")
      .where("organization_id", "=", org.id)
      .execute();
    await trx
      .insertInto("instance_audit_log")
      .values({
        actor_user_id: actor.userId,
        actor_label: actor.label.slice(0, 500),
        action: "org.delete",
        target: org.slug,
        details: JSON.stringify({ organizationId: org.id, disabledKeys: keys.length }),
        created_at: Date.now(),
      })
      .execute();
    return keys;
  });
  for (const k of keys) invalidateKeyCaches(k.public_key);
}
