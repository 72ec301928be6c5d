import { describe } from "vitest";
import { postgresAvailable, postgresDatabase } from "../helpers/databases";
import { tokenMatrixSuite } from "./token-matrix";

/** The same matrix with the server on PostgreSQL (skipped only outside CI). */
const available = await postgresAvailable();

describe.skipIf(!available)("PostgreSQL", () => {
  tokenMatrixSuite("PostgreSQL", async () => {
    const database = await postgresDatabase();
    return { url: database.url, drop: database.drop };
  });
});
