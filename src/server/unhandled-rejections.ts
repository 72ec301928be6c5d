import { logDbFailure } from "../db/failure-log";

/**
 * Node ends the process (in a worker thread, the thread) on a promise rejection nobody
 * handles. Every loop that reads or writes the database catches its own failures; this is the
 * net under one that a later change forgets, so that a database going away never ends
 * Faultline: the rejection is logged (in full unless the database is merely away) and the
 * process goes on. Installed once per thread, by each thread's entry.
 */
export function logUnhandledRejections(where: string): void {
  process.on("unhandledRejection", (reason) =>
    logDbFailure(`[${where}] unhandled rejection`, reason),
  );
}
