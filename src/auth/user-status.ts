import type { Kysely } from "kysely";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";

/**
 * Accounts the operator disabled (migration 032). A disabled account keeps its memberships
 * and history; it only cannot sign in, and its sessions were ended when it was disabled.
 */
interface DisabledUserTable {
  user_id: string;
  disabled_at: number;
}

export function userStatusTables(kysely: Kysely<Database>) {
  return kysely.withTables<{ disabled_users: DisabledUserTable }>();
}

export async function isUserDisabled(db: Db, userId: string): Promise<boolean> {
  const row = await userStatusTables(db.kysely)
    .selectFrom("disabled_users")
    .select("user_id")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** True when the account was enabled and is now disabled. */
export async function setUserDisabled(
  db: Db,
  userId: string,
  disabled: boolean,
  now = Date.now(),
): Promise<boolean> {
  const t = userStatusTables(db.kysely);
  if (!disabled) {
    const gone = await t.deleteFrom("disabled_users").where("user_id", "=", userId).execute();
    return Number(gone[0]?.numDeletedRows ?? 0) > 0;
  }
  const added = await t
    .insertInto("disabled_users")
    .values({ user_id: userId, disabled_at: now })
    .onConflict((oc) => oc.column("user_id").doNothing())
    .returning("user_id")
    .executeTakeFirst();
  return added !== undefined;
}
