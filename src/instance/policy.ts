import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";

/**
 * Who may create organizations on this installation, set by its administrators: `admins`
 * (the default: an agency's staff make organizations for their clients) or `everyone`
 * signed in. Kept in `instance_settings`; the administrators in `instance_admins`.
 */
export const ORG_CREATION = ["admins", "everyone"] as const;
export type OrgCreationPolicy = (typeof ORG_CREATION)[number];

const ORG_CREATION_SETTING = "org_creation";

export async function orgCreationPolicy(db: Db): Promise<OrgCreationPolicy> {
  const row = await accountsDb(db)
    .selectFrom("instance_settings")
    .select("value")
    .where("name", "=", ORG_CREATION_SETTING)
    .executeTakeFirst();
  return row?.value === "everyone" ? "everyone" : "admins";
}

export async function setOrgCreationPolicy(db: Db, policy: OrgCreationPolicy): Promise<void> {
  await accountsDb(db)
    .insertInto("instance_settings")
    .values({ name: ORG_CREATION_SETTING, value: policy })
    .onConflict((oc) => oc.column("name").doUpdateSet({ value: policy }))
    .execute();
}

export async function isInstanceAdmin(db: Db, userId: string): Promise<boolean> {
  const row = await db.kysely
    .selectFrom("instance_admins")
    .select("user_id")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Null when the user may create an organization, else why not (shown and sent as the 403). */
export async function whyUserMayNotCreateOrgs(db: Db, userId: string): Promise<string | null> {
  if ((await orgCreationPolicy(db)) === "everyone") return null;
  if (await isInstanceAdmin(db, userId)) return null;
  return "Only instance administrators may create organizations on this installation; ask one of them to create it or to allow everyone";
}
