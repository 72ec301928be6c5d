import { openDb } from "../../src/db/connection";

/**
 * The fixtures were captured with DSN key 0123456789abcdef0123456789abcdef of project 42.
 * Creating that project and key in a server's database lets the exact captured bytes be
 * replayed against it.
 */
export const FIXTURE_KEY = "0123456789abcdef0123456789abcdef";
export const FIXTURE_PROJECT_ID = 42;

export async function addFixtureProject(databaseUrl: string): Promise<void> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const now = Date.now();
    await db.kysely
      .insertInto("projects")
      .values({
        id: FIXTURE_PROJECT_ID,
        organization_id: 1,
        slug: "fixtures",
        name: "Fixtures",
        platform: null,
        created_at: now,
      })
      .execute();
    await db.kysely
      .insertInto("project_keys")
      .values({
        project_id: FIXTURE_PROJECT_ID,
        public_key: FIXTURE_KEY,
        secret_key: "0".repeat(32),
        label: "fixtures",
        enabled: 1,
        created_at: now,
      })
      .execute();
  } finally {
    await db.close();
  }
}
