/**
 * Errors that say the database could not be reached, went away or was momentarily busy (a
 * restart, a failover, a cut network, a full disk, a deadlock), as opposed to a statement the
 * database refused because of the data in it. The ingest worker retries a batch that failed
 * with one whole, later; only other errors are blamed on the batch's envelopes (split, then
 * dead-lettered). Getting this wrong one way dead-letters good envelopes during an outage;
 * the other way, one bad envelope stops the queue.
 */

/**
 * SQLSTATE classes: 08 connection exception, 53 insufficient resources (disk full, out of
 * memory, too many connections), 57 operator intervention (admin shutdown, crash shutdown,
 * cannot connect now, query canceled). Plus serialization failures and deadlocks (40001, 40P01),
 * which a retry resolves.
 */
const TRANSIENT_SQLSTATE_CLASSES = new Set(["08", "53", "57"]);
const TRANSIENT_SQLSTATES = new Set(["40001", "40P01"]);
/** Class 08 but caused by the statement: a NUL inside SQL text breaks the wire protocol. */
const DATA_SQLSTATES = new Set(["08P01"]);

/** Socket-level failures of node-postgres. */
const TRANSIENT_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/** better-sqlite3 codes for a busy, locked, full or failing file, not for bad data. */
const TRANSIENT_SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|NOMEM|PROTOCOL)/;

/** node-postgres and its pool say these in words only, with no code. */
const TRANSIENT_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  /Cannot use a pool after calling end/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

export function isTransientDbError(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (/^[0-9A-Z]{5}$/.test(code)) {
      if (DATA_SQLSTATES.has(code)) return false;
      return TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
    }
    if (TRANSIENT_NODE_CODES.has(code) || TRANSIENT_SQLITE_CODES.test(code)) return true;
  }
  const message = (err as { message?: unknown }).message;
  if (typeof message === "string" && TRANSIENT_MESSAGES.some((re) => re.test(message))) return true;
  // AggregateError (a connect to several addresses) and wrapped errors: look one level down.
  const inner = (err as { cause?: unknown; errors?: unknown }).cause;
  if (inner && inner !== err && isTransientDbError(inner)) return true;
  const errors = (err as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.some((e) => e !== err && isTransientDbError(e));
}
