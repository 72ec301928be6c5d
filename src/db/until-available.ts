import { logDbFailure } from "./failure-log";
import { isTransientDbError } from "./transient-errors";

/**
 * Runs `work` (a start's migrations, its defaults) until the database answers it. A database
 * that cannot be reached yet (started beside Faultline, restarting, failing over) is waited
 * for, a line in the log every few seconds, instead of ending the process for its supervisor
 * to start again; an error that waiting cannot cure (a wrong password, a database that does
 * not exist, a failed migration) still ends the start. On PostgreSQL, migrations run in one
 * transaction, so a run the database cut short is rolled back and runs again whole.
 */
export async function untilAvailable<T>(
  what: string,
  work: () => Promise<T>,
  retryMs = 2000,
): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      logDbFailure(`[db] ${what}: waiting for the database`, err);
      await new Promise((r) => setTimeout(r, retryMs));
    }
  }
}
