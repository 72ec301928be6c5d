import type { Kysely, Transaction } from "kysely";
import { insertDefaultRule } from "../alerts/rules/mutations";
import type { Database } from "../db/schema";
import { generateKeyPair } from "./dsn";

/**
 * A project row and its first DSN key, inside the caller's transaction: what every new
 * project starts with, whether made at first start (bootstrap) or from the projects page.
 */
export async function insertProjectWithKey(
  trx: Transaction<Database> | Kysely<Database>,
  project: { organizationId: number; slug: string; name: string; platform: string | null },
): Promise<{ id: number; publicKey: string }> {
  const now = Date.now();
  const row = await trx
    .insertInto("projects")
    .values({
      organization_id: project.organizationId,
      slug: project.slug,
      name: project.name,
      platform: project.platform,
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const { publicKey, secretKey } = generateKeyPair();
  await trx
    .insertInto("project_keys")
    .values({
      project_id: row.id,
      public_key: publicKey,
      secret_key: secretKey,
      label: "Default",
      enabled: 1,
      created_at: now,
    })
    .execute();
  // As Sentry does: a new issue emails the members, until someone changes or removes the rule.
  await insertDefaultRule(trx, {
    organizationId: project.organizationId,
    projectId: Number(row.id),
  });
  return { id: Number(row.id), publicKey };
}
