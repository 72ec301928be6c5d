import fs from "node:fs";
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { firstHop } from "../auth/client-ip";
import { openDb, setDb } from "../db/connection";
import { publishSelfMonitoringOrigin } from "../projects/self-monitoring";
import { logUnhandledRejections } from "./unhandled-rejections";
import { type NextHandler, webHandler } from "./web-handler";

/**
 * Entry of the web thread (role all): Next.js, on an HTTP server of its own that listens on
 * a Unix socket only the main thread talks to (web-thread-host.ts forwards every request
 * that is not ingest). Next's ~60 MB heap, its async hooks and its SDK instrumentation then
 * live in this thread, and the accepting thread keeps only ingest.
 *
 * Messages in: {selfOrigin} (where the SDK posts, known once the main thread listens),
 * "stop". Out: "ready" once Next is prepared and the socket listens, "stopped".
 */
export interface WebThreadData {
  root: string;
  host: string;
  port: number;
  socketPath: string;
  sqliteAutoCheckpointPages: number | undefined;
}

async function main(): Promise<void> {
  logUnhandledRejections("web");
  const data = workerData as WebThreadData;
  const port = parentPort;
  if (!port) throw new Error("web-thread.ts runs as a worker thread");
  // Next's bundles reach the database through getDb(); this thread's own connection.
  const db = openDb(undefined, { sqliteAutoCheckpointPages: data.sqliteAutoCheckpointPages });
  setDb(db);

  const { default: next } = await import("next");
  const app = next({ dev: false, dir: data.root, hostname: data.host, port: data.port });
  await app.prepare();
  // The main thread has replaced X-Forwarded-For with the one address it resolved from the
  // client's socket (src/auth/client-ip.ts); only it can reach this socket.
  const handle = webHandler(
    app.getRequestHandler() as NextHandler,
    (req) => firstHop(req.headers["x-forwarded-for"]) ?? "unknown",
  );
  const server = http.createServer(handle);
  // The public server applies the client timeouts; here a slow upload or a long response is
  // only the main thread's forwarding, which must not be cut short.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.keepAliveTimeout = 10 * 60_000;
  fs.rmSync(data.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(data.socketPath, resolve);
  });

  port.on("message", (message: unknown) => {
    if (message === "stop") {
      server.close();
      server.closeAllConnections();
      void db.close().finally(() => port.postMessage("stopped"));
    } else if (typeof message === "object" && message && "selfOrigin" in message) {
      publishSelfMonitoringOrigin((message as { selfOrigin?: string }).selfOrigin);
    }
  });
  port.postMessage("ready");
}

main().catch((err) => {
  console.error("[web] the web thread failed to start:", err);
  process.exit(1);
});
