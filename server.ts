import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bootstrap } from "./src/db/bootstrap";
import { openDb, setDb } from "./src/db/connection";
import { migrateToLatest } from "./src/db/migrate";
import { env } from "./src/env";
import { handleIngest, matchIngestRoute, send } from "./src/ingest/accept";
import { KeyCache } from "./src/ingest/auth";
import { openQueueWriter, type QueueWriter } from "./src/ingest/queue";
import { WorkerPool } from "./src/ingest/worker-pool";
import { formatDsn } from "./src/projects/dsn";

/**
 * One node:http server. Ingest endpoints go straight to src/ingest (no framework on the hot
 * path); everything else goes to Next's request handler. The role decides which parts this
 * process runs: all (default), web, ingest or worker.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

type NextHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

async function main(): Promise<void> {
  const config = env();
  const role = config.FAULTLINE_ROLE;
  const runsIngest = role === "all" || role === "ingest";
  const runsWeb = role === "all" || role === "web";
  const runsWorkers = (role === "all" || role === "worker") && config.FAULTLINE_WORKERS > 0;

  const db = openDb();
  setDb(db);
  const applied = await migrateToLatest(db);
  if (applied.length > 0) console.log(`[db] applied migrations: ${applied.join(", ")}`);
  const { defaultKey } = await bootstrap(db);

  let queue: QueueWriter | undefined;
  let keys: KeyCache | undefined;
  if (runsIngest) {
    queue = await openQueueWriter(db);
    keys = new KeyCache(db);
  }
  // The SQLite queue is read by position (see src/ingest/queue-sqlite.ts): one reader only.
  const workerThreads =
    db.dialect === "sqlite" ? Math.min(1, config.FAULTLINE_WORKERS) : config.FAULTLINE_WORKERS;
  if (workerThreads < config.FAULTLINE_WORKERS)
    console.warn("[worker] SQLite: using 1 worker thread");
  const workers = runsWorkers ? new WorkerPool(workerThreads) : undefined;
  await workers?.start();
  if (queue && workers) queue.onCommitted = () => workers.wake();

  let nextHandler: NextHandler | undefined;
  if (runsWeb) {
    const { default: next } = await import("next");
    const app = next({ dev: false, dir: ROOT, hostname: config.HOST, port: config.PORT });
    await app.prepare();
    nextHandler = app.getRequestHandler() as NextHandler;
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = runsIngest ? matchIngestRoute(url.pathname, url.searchParams) : null;
    if (route && queue && keys) {
      handleIngest(req, res, url, route, { keys, queue }).catch((err) => {
        console.error("[ingest] unexpected error:", err);
        if (!res.headersSent) send(res, 500, { detail: "internal error" });
        else res.destroy();
      });
      return;
    }
    if (url.pathname === "/healthz") {
      send(res, 200, { ok: true, role });
      return;
    }
    if (!nextHandler) {
      send(res, 404, { detail: "not found" });
      return;
    }
    // Sentry's API paths end in "/"; Next would redirect them. Serve them directly instead.
    if (url.pathname.startsWith("/api/0/") && url.pathname.endsWith("/")) {
      req.url = url.pathname.slice(0, -1) + url.search;
    }
    nextHandler(req, res).catch((err) => {
      console.error("[web] unhandled error:", err);
      if (!res.headersSent) send(res, 500, { detail: "internal error" });
    });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Slow-body clients must not hold a socket forever.
  server.requestTimeout = 120_000;

  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  const baseUrl =
    config.FAULTLINE_URL ??
    `http://${config.HOST === "0.0.0.0" ? "localhost" : config.HOST}:${port}`;
  console.log(`Faultline (${role}, ${db.dialect}) listening on http://${config.HOST}:${port}`);
  console.log(`DSN: ${formatDsn(baseUrl, defaultKey.publicKey, defaultKey.projectId)}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[server] ${signal}: finishing in-flight requests`);
    const force = setTimeout(() => {
      console.error("[server] shutdown took over 15 s; exiting");
      process.exit(1);
    }, 15_000);
    force.unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive sockets become idle as their last response is sent; close them as they do.
    const reaper = setInterval(() => server.closeIdleConnections(), 50);
    server.closeIdleConnections();
    await closed;
    clearInterval(reaper);
    await queue?.close();
    await workers?.stop();
    await db.close();
    console.log("[server] stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((err) => {
  console.error("[server] failed to start:", err);
  process.exit(1);
});
