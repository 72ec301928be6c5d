import pg from "pg";
import { logDbFailure } from "./failure-log";

/**
 * Waiting longer than this for a connection (a new one, or a free one of the pool) fails the
 * operation instead: a database host that vanished without a reset (a failover, a cut
 * network) would otherwise hold every request and batch for as long as the kernel retries.
 */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * The one kind of PostgreSQL connection every thread and role uses (through openDb), made to
 * outlive the database going away: a restart, a failover, an administrator's
 * pg_terminate_backend.
 *
 * A `pg` client that loses its connection emits 'error', and an 'error' event without a
 * listener throws: in the main thread that ends the process, in a worker thread the thread.
 * The pool listens only on idle clients; a client checked out (inside a query, a transaction
 * or between its statements, which is where a busy server's clients are) has no listener. So
 * every client gets one of its own for its whole life. Nothing else is needed there: the
 * operation in progress fails by itself (its caller retries or answers 503), and the pool
 * drops a client that cannot be queried when it is released and connects afresh next time.
 */
export function openPostgresPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Lets the kernel find a connection to a host that went away silently: probes start
    // after 10 s without traffic instead of the system's default two hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  pool.on("connect", (client) => {
    client.on("error", (err) => logDbFailure("[db] PostgreSQL connection lost", err));
  });
  // An idle client's error reaches the pool too, which removes that client; logged above.
  pool.on("error", () => {});
  return pool;
}
