import { type AuditActor, recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { whyUserMayNotCreateOrgs } from "../instance/policy";
import { isUniqueViolation } from "../projects/mutations";
import type { OrgRef } from "./queries";
import type { CreateOrgInput } from "./schemas";

/** The error of a slug someone already has; `slug:` names the field, as the API's 400s do. */
export function slugTaken(slug: string): AppError {
  return new AppError(
    "bad_request",
    `slug: the address "${slug}" is already taken; choose another`,
  );
}

/**
 * A new organization with its creator as owner and a default team named after its slug, in
 * one transaction; refused (403, with why) when the instance's policy does not let the user
 * create organizations. Projects come next, from the new organization's projects page.
 */
export async function createOrganization(
  db: Db,
  input: CreateOrgInput,
  creator: { userId: string; actor: AuditActor },
): Promise<OrgRef & { dateCreated: number }> {
  const why = await whyUserMayNotCreateOrgs(db, creator.userId);
  if (why) throw new AppError("forbidden", why);
  const now = Date.now();
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      const taken = await trx
        .selectFrom("organizations")
        .select("id")
        .where("slug", "=", input.slug)
        .executeTakeFirst();
      if (taken) throw slugTaken(input.slug);
      const org = await trx
        .insertInto("organizations")
        .values({ slug: input.slug, name: input.name, created_at: now })
        .returning("id")
        .executeTakeFirstOrThrow();
      const orgId = Number(org.id);
      await trx
        .insertInto("teams")
        .values({ organization_id: orgId, slug: input.slug, name: input.name, date_created: now })
        .execute();
      await trx
        .withTables<{
          members: { organization_id: number; user_id: string; role: string; created_at: number };
        }>()
        .insertInto("members")
        .values({ organization_id: orgId, user_id: creator.userId, role: "owner", created_at: now })
        .execute();
      await recordAudit(trx, {
        orgId,
        actor: creator.actor,
        action: "org.create",
        target: input.slug,
        details: { name: input.name },
      });
      return { id: orgId, slug: input.slug, name: input.name, dateCreated: now };
    });
  } catch (err) {
    // Two people taking the same slug at once: the unique constraint decides.
    if (isUniqueViolation(err)) throw slugTaken(input.slug);
    throw err;
  }
}
