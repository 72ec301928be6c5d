import { expect, it } from "vitest";
import { postgresDatabase } from "./helpers/databases";

/**
 * Migrating one schema while others in the same PostgreSQL database are dropped: Kysely
 * lists every schema's tables to find its own, and a schema dropped meanwhile failed that
 * listing ("schema … does not exist"). Test files do exactly this to each other in CI;
 * without the retry in migrateToLatest this failed within a few dozen rounds here.
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
