import { expect, it } from "vitest";
import { postgresDatabase } from "./helpers/databases";

/**
 * Migrating one schema while others in the same PostgreSQL database are dropped: Kysely's
 * own introspector lists every schema's tables to find its bookkeeping table, and a schema
 * or table dropped meanwhile failed that listing ("schema … does not exist", "relation …
 * does not exist"). Test files do exactly this to each other in CI. With Kysely's
 * introspector this failed within a few dozen rounds here; ours lists only the current schema.
 */
it("migrates while other schemas of the database are being dropped", async () => {
  const errors: string[] = [];
  const churn = async () => {
    for (let i = 0; i < 15; i++) {
      const database = await postgresDatabase();
      await (await database.open()).close();
      await database.drop();
    }
  };
  const migrate = async () => {
    for (let i = 0; i < 15; i++) {
      const database = await postgresDatabase();
      try {
        await (await database.open()).close();
      } catch (err) {
        errors.push((err as Error).message);
      }
      await database.drop();
    }
  };
  await Promise.all([churn(), churn(), migrate(), migrate()]);
  expect(errors).toEqual([]);
}, 120_000);
