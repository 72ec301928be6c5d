// `npm run db:migrate`: apply pending migrations to DATABASE_URL and create the defaults.
import { bootstrap } from "../src/db/bootstrap";
import { openDb } from "../src/db/connection";
import { migrateToLatest } from "../src/db/migrate";

const db = openDb();
const applied = await migrateToLatest(db);
await bootstrap(db);
console.log(applied.length > 0 ? `applied: ${applied.join(", ")}` : "database is up to date");
await db.close();
