import type { Db } from "../db/connection";
import { AppError } from "../errors";
import type { FaultlineAuth } from "./auth";
import { createPasswordUser } from "./credentials";
import { accountsDb } from "./tables";

/**
 * First run: while no user exists, /setup creates the owner and names the organization the
 * bootstrap made (`default`). Afterwards it is gone.
 */
export async function needsSetup(db: Db): Promise<boolean> {
  const anyUser = await accountsDb(db).selectFrom("user").select("id").limit(1).executeTakeFirst();
  return !anyUser;
}

export interface SetupInput {
  name: string;
  email: string;
  password: string;
  orgName: string;
  orgSlug: string;
}

const SETUP_CLAIM = "setup_completed_at";

/** Returns false when setup was already done (or is being done by a concurrent request). */
export async function completeSetup(
  deps: { db: Db; auth: FaultlineAuth },
  input: SetupInput,
): Promise<boolean> {
  const kdb = accountsDb(deps.db);
  if (!(await needsSetup(deps.db))) return false;
  // Two first-run forms submitted at once: the unique setting name lets exactly one proceed.
  const claimed = await kdb
    .insertInto("instance_settings")
    .values({ name: SETUP_CLAIM, value: String(Date.now()) })
    .onConflict((oc) => oc.column("name").doNothing())
    .returning("name")
    .executeTakeFirst();
  if (!claimed) return false;

  let userId: string | undefined;
  try {
    userId = (await createPasswordUser(deps.auth, input)).id;
    const createdUser = userId;
    await kdb.transaction().execute(async (trx) => {
      const org = await trx
        .selectFrom("organizations")
        .select("id")
        .orderBy("id")
        .limit(1)
        .executeTakeFirst();
      if (!org) throw new AppError("internal", "the bootstrap organization is missing");
      await trx
        .updateTable("organizations")
        .set({ name: input.orgName, slug: input.orgSlug })
        .where("id", "=", org.id)
        .execute();
      await trx
        .updateTable("teams")
        .set({ name: input.orgName, slug: input.orgSlug })
        .where("organization_id", "=", org.id)
        .execute();
      // Whoever sets the instance up administers it (src/instance/policy.ts).
      await trx
        .insertInto("instance_admins")
        .values({ user_id: createdUser, created_at: Date.now() })
        .execute();
      await trx
        .insertInto("members")
        .values({
          organization_id: org.id,
          user_id: createdUser,
          role: "owner",
          created_at: Date.now(),
        })
        .execute();
    });
    return true;
  } catch (err) {
    // Leave the installation as it was, so setup can be tried again.
    if (userId) await (await deps.auth.$context).internalAdapter.deleteUser(userId);
    await kdb.deleteFrom("instance_settings").where("name", "=", SETUP_CLAIM).execute();
    throw err;
  }
}
