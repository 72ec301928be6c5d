import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { isAppError } from "../errors";
import { addInstanceAdmin, removeInstanceAdmin } from "./admins";
import {
  ORG_CREATION,
  type OrgCreationPolicy,
  orgCreationPolicy,
  setOrgCreationPolicy,
} from "./policy";

/**
 * `npm run admin -- instance …` (scripts/admin.ts): the instance page's settings from the
 * command line, for an operator locked out of the web (every administrator gone) or scripting.
 */
export async function runInstanceCommand(
  db: Db,
  command: string | undefined,
  arg: string | undefined,
): Promise<{ ok: boolean; output: string }> {
  try {
    if (command === "admins") {
      const rows = await accountsDb(db)
        .selectFrom("instance_admins")
        .innerJoin("user", "user.id", "instance_admins.user_id")
        .select(["user.email"])
        .orderBy("user.email")
        .execute();
      return { ok: true, output: rows.map((r) => r.email).join("\n") || "no administrators" };
    }
    if (command === "add-admin" && arg) {
      await addInstanceAdmin(db, arg.trim().toLowerCase());
      return { ok: true, output: `${arg} is an instance administrator` };
    }
    if (command === "remove-admin" && arg) {
      const user = await accountsDb(db)
        .selectFrom("user")
        .select("id")
        .where("email", "=", arg.trim().toLowerCase())
        .executeTakeFirst();
      if (!user) return { ok: false, output: `no user signs in as ${arg}` };
      await removeInstanceAdmin(db, user.id);
      return { ok: true, output: `${arg} is no longer an instance administrator` };
    }
    if (command === "org-creation") {
      if (arg === undefined)
        return { ok: true, output: `org-creation: ${await orgCreationPolicy(db)}` };
      if (!(ORG_CREATION as readonly string[]).includes(arg))
        return { ok: false, output: `org-creation is one of: ${ORG_CREATION.join(", ")}` };
      await setOrgCreationPolicy(db, arg as OrgCreationPolicy);
      return { ok: true, output: `org-creation: ${arg}` };
    }
    return { ok: false, output: `unknown command: instance ${command ?? ""} ${arg ?? ""}` };
  } catch (err) {
    if (isAppError(err)) return { ok: false, output: err.message };
    throw err;
  }
}
