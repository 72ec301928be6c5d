import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { isInstanceAdmin } from "./policy";

/**
 * Naming and removing instance administrators (the instance page, app/(auth)/settings/instance).
 * There is always at least one: the last cannot be removed, so the policy stays changeable.
 */
export async function requireInstanceAdmin(db: Db, userId: string): Promise<void> {
  if (!(await isInstanceAdmin(db, userId)))
    throw new AppError("forbidden", "only instance administrators may do this");
}

export async function addInstanceAdmin(db: Db, email: string): Promise<void> {
  const user = await accountsDb(db)
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirst();
  if (!user) throw new AppError("bad_request", `email: no user signs in as ${email}`);
  await db.kysely
    .insertInto("instance_admins")
    .values({ user_id: user.id, created_at: Date.now() })
    .onConflict((oc) => oc.column("user_id").doNothing())
    .execute();
}

export async function removeInstanceAdmin(db: Db, userId: string): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const admins = await trx.selectFrom("instance_admins").select("user_id").execute();
    if (!admins.some((a) => a.user_id === userId))
      throw new AppError("not_found", "not an instance administrator");
    if (admins.length === 1)
      throw new AppError(
        "bad_request",
        "the last instance administrator cannot be removed; name another first",
      );
    await trx.deleteFrom("instance_admins").where("user_id", "=", userId).execute();
  });
}
