import { randomBytes } from "node:crypto";
import type { Db } from "../db/connection";
import { env } from "../env";
import { accountsDb } from "./tables";

const SECRET_SETTING = "auth_secret";

/**
 * FAULTLINE_AUTH_SECRET, or one generated at first use and kept in the database: every
 * process of an installation then signs cookies alike without anyone having to configure it.
 * Whoever can read the database can read sessions anyway, so it guards nothing more there.
 */
export async function authSecret(db: Db): Promise<string> {
  const configured = env().FAULTLINE_AUTH_SECRET;
  if (configured) return configured;
  const kdb = accountsDb(db);
  // The first process to insert wins; the others read its value.
  await kdb
    .insertInto("instance_settings")
    .values({ name: SECRET_SETTING, value: randomBytes(32).toString("base64url") })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = await kdb
    .selectFrom("instance_settings")
    .select("value")
    .where("name", "=", SECRET_SETTING)
    .executeTakeFirstOrThrow();
  return row.value;
}
