import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AlertSender } from "./src/alerts/delivery/sender";
import { resolveClientIp } from "./src/auth/client-ip";
import { bootstrap } from "./src/db/bootstrap";
import { openDb, setDb } from "./src/db/connection";
import { migrateToLatest } from "./src/db/migrate";
import { untilAvailable } from "./src/db/until-available";
import { FALLBACK_AUTOCHECKPOINT_PAGES } from "./src/db/wal-checkpointer";
import { env } from "./src/env";
import { handleIngest } from "./src/ingest/accept/handle-ingest";
import { type IngestService, startIngest } from "./src/ingest/accept/ingest-service";
import { send } from "./src/ingest/accept/respond";
import { ingestTarget } from "./src/ingest/accept/route";
import { WorkerPool } from "./src/ingest/workers/worker-pool";
import { startOrgDeletion } from "./src/maintenance/org-deletion";
import { MissedCheckInDetector } from "./src/monitors/missed";
import { formatDsn } from "./src/projects/dsn";
import { loopbackOrigin, publishSelfMonitoringOrigin } from "./src/projects/self-monitoring";
import { isBuiltSourceMap } from "./src/server/static-maps";
import { logUnhandledRejections } from "./src/server/unhandled-rejections";
import { type NextHandler, webHandler } from "./src/server/web-handler";
import { WebThread } from "./src/server/web-thread-host";
import { registerSelfSourceMaps } from "./src/sourcemaps/self-bundle";
import { UptimeRunner } from "./src/uptime/runner";
import { FAULTLINE_VERSION } from "./src/version";

/**
 * One node:http server. Ingest endpoints go straight to src/ingest (no framework on the hot
 * path); everything else goes to Next's request handler. The role decides which parts this
 * process runs: all (default), web, ingest or worker. In role all, Next runs in a thread of
 * its own (src/server/web-thread-host.ts) so that the accepting thread carries only ingest.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function main(): Promise<void> {
  logUnhandledRejections("server");
  const config = env();
  const role = config.FAULTLINE_ROLE;
  const runsIngest = role === "all" || role === "ingest";
  const runsWeb = role === "all" || role === "web";
  const runsWorkers = (role === "all" || role === "worker") && config.FAULTLINE_WORKERS > 0;
  // The first line of every start says which Faultline this is, for an operator's upgrade log.
  console.log(`Faultline ${FAULTLINE_VERSION} starting (role ${role}, Node.js ${process.version})`);

  // Where this process runs the worker, its checkpoint thread copies the WAL into the
  // database; the accepting thread would otherwise do it whenever one of its commits found
  // the WAL past SQLite's default of 1,000 pages, holding up every request meanwhile.
  const db = openDb(undefined, {
    sqliteAutoCheckpointPages: runsWorkers ? FALLBACK_AUTOCHECKPOINT_PAGES : undefined,
  });
  setDb(db);
  // Each migration's time, for an operator watching a long upgrade (they commit together).
  const applied = await untilAvailable("migrations", () =>
    migrateToLatest(db, (name, ms) => console.log(`[db] migration ${name} ran in ${ms} ms`)),
  );
  if (applied.length > 0) console.log(`[db] applied migrations: ${applied.join(", ")}`);
  const { defaultKey } = await untilAvailable("defaults", () => bootstrap(db));
  // Faultline's own browser source maps, built beside the chunks, for its `faultline` project.
  try {
    const started = Date.now();
    const own = await registerSelfSourceMaps(db, ROOT);
    if (own.state === "registered")
      console.log(
        `[sourcemaps] registered this build's ${own.maps} source maps for project faultline (${Date.now() - started} ms)`,
      );
  } catch (err) {
    console.error("[sourcemaps] cannot register this build's own source maps:", err);
  }

  const ingest: IngestService | undefined = runsIngest ? await startIngest(db) : undefined;
  // The SQLite queue is read by position (see src/ingest/queue/sqlite.ts): one reader only.
  const workerThreads =
    db.dialect === "sqlite" ? Math.min(1, config.FAULTLINE_WORKERS) : config.FAULTLINE_WORKERS;
  if (workerThreads < config.FAULTLINE_WORKERS)
    console.warn("[worker] SQLite: using 1 worker thread");
  // Role all holds processing while accepting is saturated (worker-pool.ts), as long as the
  // backlog stays under half its bound, so that the hold itself never causes backpressure.
  const workers = runsWorkers
    ? new WorkerPool(workerThreads, {
        idlePriority: role !== "worker",
        mayHold: () => (ingest?.context.pressure.backlogShare() ?? 1) < 0.5,
      })
    : undefined;
  await workers?.start();
  if (ingest && workers) ingest.context.queue.onCommitted = () => workers.wake();
  const missedCheckIns = runsWorkers ? new MissedCheckInDetector(db) : undefined;
  missedCheckIns?.start();
  // Alert delivery (src/alerts/delivery/sender.ts): every worker-role process sends.
  const alertSender = runsWorkers ? new AlertSender(db) : undefined;
  alertSender?.start();
  // Uptime checks (src/uptime/runner.ts): every worker-role process claims what is due.
  const uptime = runsWorkers ? new UptimeRunner(db) : undefined;
  uptime?.start();
  // Deleted organizations' data (src/maintenance/org-deletion.ts): every worker-role process.
  const orgDeletion = runsWorkers
    ? startOrgDeletion(db, {
        intervalMs: 2000,
        dataDir: db.sqlitePath
          ? path.dirname(db.sqlitePath)
          : path.resolve(config.FAULTLINE_DATA_DIR),
        batchSize: config.FAULTLINE_ORG_DELETION_BATCH_ROWS,
        pauseMs: config.FAULTLINE_ORG_DELETION_PAUSE_MS,
      })
    : undefined;

  // Where the main thread also accepts ingest, Next gets the web thread; in role web it
  // runs here, since this thread has no ingest to keep free.
  const clientIp = (req: http.IncomingMessage) =>
    resolveClientIp(
      req.headers["x-forwarded-for"],
      req.socket.remoteAddress,
      config.FAULTLINE_TRUST_PROXY,
    );
  const webThread =
    runsWeb && runsIngest
      ? new WebThread({
          root: ROOT,
          host: config.HOST,
          port: config.PORT,
          sqliteAutoCheckpointPages: runsWorkers ? FALLBACK_AUTOCHECKPOINT_PAGES : undefined,
        })
      : undefined;
  await webThread?.start();
  let handleWeb: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
  if (webThread) {
    handleWeb = (req, res) => webThread.forward(req, res, clientIp(req));
  } else if (runsWeb) {
    const { default: next } = await import("next");
    const app = next({ dev: false, dir: ROOT, hostname: config.HOST, port: config.PORT });
    await app.prepare();
    handleWeb = webHandler(app.getRequestHandler() as NextHandler, clientIp);
  }

  const server = http.createServer((req, res) => {
    const target = ingest ? ingestTarget(req.url ?? "/") : null;
    if (target && ingest) {
      handleIngest(req, res, target.query, target.route, ingest.context);
      return;
    }
    if (req.url === "/healthz" || req.url?.startsWith("/healthz?")) {
      send(res, 200, { ok: true, role });
      return;
    }
    // The build's own source maps sit among the chunks Next serves; they are for the
    // symbolicator only (src/sourcemaps/self-bundle.ts), never for browsers.
    if (!handleWeb || isBuiltSourceMap(req.url ?? "/")) {
      send(res, 404, { detail: "not found" });
      return;
    }
    handleWeb(req, res);
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
  // The app's own server-side SDK posts to /monitoring (instrumentation.ts): here when this
  // process ingests, else through the public URL.
  const selfOrigin = runsIngest ? loopbackOrigin(config.HOST, port) : config.FAULTLINE_URL;
  publishSelfMonitoringOrigin(selfOrigin);
  webThread?.publishSelfOrigin(selfOrigin);
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
    await webThread?.stop();
    await ingest?.stop();
    await workers?.stop();
    await missedCheckIns?.stop();
    await uptime?.stop();
    await alertSender?.stop();
    await orgDeletion?.stop();
    await db.close();
    console.log("[server] stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // Only now: whoever waits for this line (a test, a process manager) may stop the server at
  // once, and a SIGTERM before the handler above would kill it without its shutdown.
  console.log(`Faultline (${role}, ${db.dialect}) listening on http://${config.HOST}:${port}`);
  console.log(`DSN: ${formatDsn(baseUrl, defaultKey.publicKey, defaultKey.projectId)}`);
}

main().catch((err) => {
  console.error("[server] failed to start:", err);
  process.exit(1);
});
