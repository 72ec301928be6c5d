#!/usr/bin/env node
// Captures REAL envelopes sent by the REAL Sentry SDKs into tests/fixtures/envelopes/.
//
//   node scripts/capture-fixtures.mjs              # node + browser (+ nextjs, best effort)
//   node scripts/capture-fixtures.mjs --no-nextjs  # skip the Next.js scenario
//
// How it works: a recording HTTP server on 127.0.0.1:<random port> stores every POST body
// byte-for-byte (never decompressed) and answers 200 `{}`. Each SDK is pointed at it with the
// DSN http://<PUBLIC_KEY>@127.0.0.1:<port>/42 and driven through a list of named steps; every
// request is tagged with the step that was running when it arrived, and is written as
// `<sdk>-<step>-<n>.envelope` (raw bytes) plus `<same name>.json` (sidecar metadata).
//
// The same file doubles as the child process for the @sentry/node scenarios
// (`--child <kind> <port>`), so each scenario gets a fresh process and fresh SDK global state.

import { fork, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), "..");
const OUT_DIR = path.join(ROOT, "tests/fixtures/envelopes");
const PUBLIC_KEY = "0123456789abcdef0123456789abcdef";
const PROJECT_ID = "42";
const RELEASE = "fixture@1.0.0";
const ENVIRONMENT = "test";
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const OVERALL_TIMEOUT_MS = 175_000;

const dsnFor = (port) => `http://${PUBLIC_KEY}@127.0.0.1:${port}/${PROJECT_ID}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pkgVersion = (name) => {
  try {
    return JSON.parse(
      fs.readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8"),
    ).version;
  } catch {
    return null;
  }
};

// ---------------------------------------------------------------------------------------------
// Parent: recorder + orchestration
// ---------------------------------------------------------------------------------------------

async function main() {
  const startedAt = Date.now();
  const watchdog = setTimeout(() => {
    console.error(`[capture] overall timeout (${OVERALL_TIMEOUT_MS} ms) reached, aborting`);
    process.exit(1);
  }, OVERALL_TIMEOUT_MS);
  watchdog.unref();

  const recorder = await startRecorder();
  console.log(`[capture] recorder listening on http://127.0.0.1:${recorder.port}`);
  const failures = [];

  const onlyArg = process.argv.find((a) => a.startsWith("--only="));
  const only = onlyArg ? onlyArg.slice("--only=".length).split(",") : ["node", "browser", "nextjs"];
  const run = (sdk) =>
    only.includes(sdk) && !(sdk === "nextjs" && process.argv.includes("--no-nextjs"));

  // 1) @sentry/node, one child process per kind
  for (const kind of run("node") ? ["basic", "http", "unhandled", "static"] : []) {
    try {
      await runNodeScenario(recorder, kind);
    } catch (err) {
      failures.push(`node/${kind}: ${err?.stack || err}`);
      console.error(`[capture] node/${kind} failed:`, err);
    }
  }

  // 2) @sentry/browser in Chromium
  try {
    if (run("browser")) await runBrowserScenario(recorder);
  } catch (err) {
    failures.push(`browser: ${err?.stack || err}`);
    console.error("[capture] browser scenario failed:", err);
  }

  // 3) @sentry/nextjs (optional, best effort)
  const optionalFailures = [];
  if (run("nextjs")) {
    try {
      // Leave ~45 s after the build for driving the app, so the whole run stays under the watchdog.
      await runNextScenario(recorder, startedAt + OVERALL_TIMEOUT_MS - 45_000);
    } catch (err) {
      optionalFailures.push(`nextjs: ${err?.message || err}`);
      console.error(
        "[capture] nextjs scenario failed (optional, continuing):",
        err?.message || err,
      );
    }
  }

  await recorder.close();
  const written = writeFixtures(recorder.records, ["node", "browser", "nextjs"].filter(run));
  console.log(
    `\n[capture] wrote ${written.length} fixtures to ${path.relative(ROOT, OUT_DIR)}/ in ${Math.round((Date.now() - startedAt) / 1000)} s`,
  );
  for (const f of written) {
    console.log(
      `  ${f.file.padEnd(44)} ${String(f.bytes).padStart(7)} B ${f.contentEncoding ? `[${f.contentEncoding}] ` : ""}${f.itemTypes.join(",")}`,
    );
  }
  for (const f of optionalFailures) console.warn(`[capture] optional scenario skipped: ${f}`);
  failures.push(...verifyFixtures(written, ["node", "browser"].filter(run)));
  if (failures.length) {
    console.error(`[capture] ${failures.length} required scenario(s) failed`);
    process.exit(1);
  }
  process.exit(0);
}

function startRecorder() {
  const records = [];
  let label = "unlabelled";
  let labeler = null; // optional (req) => label override
  let lastActivity = Date.now();
  const routes = new Map(); // GET path -> { type, body }
  const sockets = new Set();

  const server = http.createServer((req, res) => {
    lastActivity = Date.now();
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Expose-Headers", "x-sentry-rate-limits, retry-after");
    const url = new URL(req.url, "http://127.0.0.1");

    if (req.method === "OPTIONS") {
      res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      res.setHeader(
        "Access-Control-Allow-Headers",
        req.headers["access-control-request-headers"] || "*",
      );
      res.setHeader("Access-Control-Max-Age", "600");
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method === "POST") {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        lastActivity = Date.now();
        const body = Buffer.concat(chunks);
        const pick = (h) => (req.headers[h] === undefined ? null : req.headers[h]);
        records.push({
          label: labeler?.(req) || label,
          receivedAt: Date.now(),
          method: req.method,
          path: url.pathname,
          query: url.search.startsWith("?") ? url.search.slice(1) : url.search,
          headers: {
            "content-type": pick("content-type"),
            "content-encoding": pick("content-encoding"),
            "x-sentry-auth": pick("x-sentry-auth"),
            authorization: pick("authorization"),
            "content-length": pick("content-length"),
            "transfer-encoding": pick("transfer-encoding"),
            "user-agent": pick("user-agent"),
            origin: pick("origin"),
          },
          body,
        });
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end("{}");
      });
      return;
    }
    if (req.method === "GET" || req.method === "HEAD") {
      const route = routes.get(url.pathname);
      if (route) {
        res.writeHead(200, { "Content-Type": route.type, "Cache-Control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : route.body);
      } else {
        res.writeHead(url.pathname === "/favicon.ico" ? 204 : 404);
        res.end();
      }
      return;
    }
    res.writeHead(405);
    res.end();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        port,
        records,
        routes,
        setLabel(l) {
          label = l;
        },
        setLabeler(fn) {
          labeler = fn;
        },
        count(pred = () => true) {
          return records.filter(pred).length;
        },
        /** Wait until at least `min` requests matched `pred` and nothing arrived for `quietMs`. */
        async waitQuiet({ quietMs = 500, min = 0, pred = () => true, timeoutMs = 15_000 } = {}) {
          const deadline = Date.now() + timeoutMs;
          while (Date.now() < deadline) {
            if (records.filter(pred).length >= min && Date.now() - lastActivity >= quietMs)
              return true;
            await sleep(50);
          }
          return false;
        },
        close() {
          for (const s of sockets) s.destroy();
          return new Promise((r) => server.close(() => r()));
        },
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Scenario: @sentry/node (parent side)
// ---------------------------------------------------------------------------------------------

function runNodeScenario(recorder, kind) {
  console.log(`[capture] node/${kind}: starting child process`);
  return new Promise((resolve, reject) => {
    const child = fork(SCRIPT, ["--child", kind, String(recorder.port)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env: {
        ...process.env,
        NODE_OPTIONS: "",
        SENTRY_DSN: "",
        SENTRY_RELEASE: "",
        SENTRY_ENVIRONMENT: "",
      },
    });
    const tail = [];
    const keep = (d) => {
      tail.push(String(d));
      if (tail.length > 50) tail.shift();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node/${kind} child timed out\n${tail.join("")}`));
    }, 45_000);

    child.on("message", async (msg) => {
      if (msg?.type === "step") {
        recorder.setLabel(`node-${msg.name}`);
        console.log(`[capture]   step node-${msg.name}`);
      } else if (msg?.type === "step-done") {
        await recorder.waitQuiet({ quietMs: 300, timeoutMs: 5_000 });
      }
      if (msg?.id && child.connected) child.send({ type: "ack", id: msg.id });
    });
    child.on("exit", async (code, signal) => {
      clearTimeout(timer);
      await recorder.waitQuiet({ quietMs: 500, timeoutMs: 5_000 });
      const expected = kind === "unhandled" ? 1 : 0; // the uncaught exception makes the SDK exit(1)
      if (code === expected) resolve();
      else
        reject(
          new Error(
            `node/${kind} child exited with code ${code} signal ${signal}, expected ${expected}\n${tail.join("")}`,
          ),
        );
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Scenario: @sentry/node (child side). Runs in its own process.
// ---------------------------------------------------------------------------------------------

async function runNodeChild(kind, port) {
  const Sentry = await import("@sentry/node");
  const dsn = dsnFor(port);

  let seq = 0;
  const pending = new Map();
  process.on("message", (m) => {
    if (m?.type === "ack") {
      pending.get(m.id)?.();
      pending.delete(m.id);
    }
  });
  const rpc = (msg) =>
    new Promise((resolve) => {
      const id = ++seq;
      pending.set(id, resolve);
      process.send({ ...msg, id });
    });
  const step = async (name, fn) => {
    await rpc({ type: "step", name });
    await fn();
    await Sentry.flush(10_000);
    await rpc({ type: "step-done", name });
  };
  const done = () => {
    // Let the process end on its own: `beforeExit` is where the SDK ends the process session.
    process.removeAllListeners("message");
    process.disconnect();
  };

  const baseOptions = {
    dsn,
    release: RELEASE,
    environment: ENVIRONMENT,
    tracesSampleRate: 1.0,
    enableLogs: true,
  };

  if (kind === "basic") {
    Sentry.init({ ...baseOptions });

    await step("exception", async () => {
      Sentry.setTag("feature", "checkout");
      Sentry.setTags({ region: "eu-west-1", tier: "premium" });
      Sentry.setUser({ id: "u-123", email: "jane.doe@example.com" });
      Sentry.setContext("order", { id: "ord-9001", total: 129.5, currency: "EUR", items: 2 });
      Sentry.addBreadcrumb({
        category: "auth",
        message: "User u-123 logged in",
        level: "info",
        data: { method: "password" },
      });
      console.log("Loading cart for user u-123");
      Sentry.addBreadcrumb({
        category: "cart",
        message: "Cart loaded",
        level: "debug",
        data: { items: 2 },
      });

      function validateItem(item) {
        if (item.quantity <= 0)
          throw new RangeError(`Invalid quantity ${item.quantity} for SKU ${item.sku}`);
      }
      function validateCart(cart) {
        cart.items.forEach(validateItem);
      }
      function processCheckout(cart) {
        validateCart(cart);
        return { ok: true };
      }
      try {
        processCheckout({
          items: [
            { sku: "A-1", quantity: 1 },
            { sku: "B-2", quantity: 0 },
          ],
        });
      } catch (err) {
        Sentry.captureException(err);
      }
    });

    await step("linked-errors", async () => {
      class DatabaseError extends Error {
        constructor(message, options) {
          super(message, options);
          this.name = "DatabaseError";
          this.code = "ECONNREFUSED";
        }
      }
      function connect() {
        throw new DatabaseError("connect ECONNREFUSED 10.0.0.5:5432");
      }
      function loadUser(id) {
        try {
          connect();
        } catch (err) {
          throw new Error(`Failed to load user ${id}`, { cause: err });
        }
      }
      function handleRequest() {
        try {
          loadUser("u-123");
        } catch (err) {
          throw new Error("GET /profile failed", { cause: err });
        }
      }
      try {
        handleRequest();
      } catch (err) {
        Sentry.captureException(err);
      }
    });

    await step("message", async () => {
      Sentry.captureMessage("Disk usage above 90% on /var/lib/faultline", "warning");
    });

    await step("large-gzip", async () => {
      // > 32 KiB serialized, so the node transport gzips the body.
      const line = "The quick brown fox jumps over the lazy dog. 0123456789 ";
      Sentry.withScope((scope) => {
        scope.setExtra("payload_dump", line.repeat(1200)); // ~67 KB string
        scope.setExtra(
          "rows",
          Array.from({ length: 50 }, (_, i) => `row-${i}: ${line}`),
        );
        Sentry.captureException(new Error("Import failed: payload too large to process"));
      });
    });

    await step("attachment", async () => {
      Sentry.withScope((scope) => {
        scope.addAttachment({
          filename: "debug.txt",
          data: "line one\nline two\n\nline four (after an empty line)\n",
        });
        scope.addAttachment({
          filename: "state.json",
          data: JSON.stringify({ cart: { items: 2 }, note: "contains\nnewlines" }, null, 2),
          contentType: "application/json",
        });
        scope.addAttachment({
          filename: "blob.bin",
          data: new Uint8Array([0, 1, 2, 10, 13, 10, 255, 254, 10, 0]),
        });
        Sentry.captureException(new Error("Report generation failed (with attachments)"));
      });
    });

    await step("transaction", async () => {
      await Sentry.startSpan(
        { name: "GET /checkout", op: "http.server", attributes: { "http.method": "GET" } },
        async () => {
          await Sentry.startSpan(
            { name: "SELECT * FROM carts WHERE user_id = ?", op: "db.query" },
            async () => {
              await sleep(15);
            },
          );
          await Sentry.startSpan({ name: "render checkout", op: "template.render" }, async () => {
            await Sentry.startSpan(
              { name: "render line items", op: "template.render" },
              async () => {
                await sleep(5);
              },
            );
            await sleep(5);
          });
        },
      );
    });

    await step("logs", async () => {
      Sentry.logger.info(Sentry.logger.fmt`User ${"u-123"} started checkout with ${2} items`);
      Sentry.logger.warn("Cache miss ratio is high", {
        "cache.name": "carts",
        "cache.miss_ratio": 0.42,
      });
      Sentry.logger.error("Payment provider timeout", {
        provider: "acme-pay",
        timeout_ms: 3000,
        retry: true,
      });
      Sentry.logger.info("Checkout finished");
    });

    await step("exit", async () => {});
    done();
    return;
  }

  if (kind === "http") {
    Sentry.init({ ...baseOptions });
    await step("http-server", async () => {
      const server = http.createServer((req, res) => {
        if (req.url.startsWith("/boom")) {
          function parsePayload(raw) {
            return JSON.parse(raw);
          }
          try {
            parsePayload("{not json");
          } catch (err) {
            Sentry.captureException(err);
            res.statusCode = 500;
            res.end("error");
            return;
          }
        }
        res.setHeader("content-type", "application/json");
        res.end('{"ok":true}');
      });
      await new Promise((r) => server.listen(0, "127.0.0.1", r));
      const base = `http://127.0.0.1:${server.address().port}`;
      await (await fetch(`${base}/health`)).text();
      await (
        await fetch(`${base}/boom?order=9001`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{not json",
        })
      ).text();
      await (await fetch(`${base}/health`)).text();
      server.closeAllConnections?.();
      await new Promise((r) => server.close(r));
      await sleep(100);
    });
    await step("http-exit", async () => {});
    done();
    return;
  }

  if (kind === "unhandled") {
    Sentry.init({ ...baseOptions });
    await step("unhandled-rejection", async () => {
      async function fetchInventory() {
        await sleep(1);
        throw new Error("Inventory service returned 503");
      }
      fetchInventory(); // never awaited -> unhandledRejection
      await sleep(200);
    });
    await rpc({ type: "step", name: "uncaught-exception" });
    function readConfig() {
      const config = undefined;
      return config.database.url; // TypeError
    }
    function bootstrap() {
      return readConfig();
    }
    // Thrown from a timer: a real uncaught exception. The SDK captures it, flushes and exits(1).
    setTimeout(() => bootstrap(), 10);
    return;
  }

  if (kind === "static") {
    // traceLifecycle "static": the pre-span-streaming format (one `transaction` item per local root).
    Sentry.init({ ...baseOptions, traceLifecycle: "static" });
    await step("static-transaction", async () => {
      await Sentry.startSpan({ name: "process-order-queue", op: "queue.process" }, async () => {
        await Sentry.startSpan({ name: "fetch order", op: "db.query" }, () => sleep(10));
        await Sentry.startSpan({ name: "charge card", op: "http.client" }, async () => {
          await Sentry.startSpan({ name: "sign request", op: "function" }, () => sleep(3));
          await sleep(5);
        });
      });
    });
    await step("static-exit", async () => {});
    done();
    return;
  }

  throw new Error(`unknown child kind ${kind}`);
}

// ---------------------------------------------------------------------------------------------
// Scenario: @sentry/browser in Chromium
// ---------------------------------------------------------------------------------------------

const BROWSER_PAGE_SCRIPT = `
import * as Sentry from "@sentry/browser";

Sentry.init({
  dsn: __FIXTURE_DSN__,
  release: ${JSON.stringify(RELEASE)},
  environment: ${JSON.stringify(ENVIRONMENT)},
  integrations: [Sentry.browserTracingIntegration()],
  tracesSampleRate: 1.0,
  enableLogs: true,
});
Sentry.setUser({ id: "u-browser-1", email: "web.user@example.com" });
Sentry.setTag("page", "checkout");
window.Sentry = Sentry;

const state = { cart: undefined };

function formatTotal(cart) {
  return cart.total.toFixed(2); // cart is undefined -> TypeError
}
function renderSummary(s) {
  return "Total: " + formatTotal(s.cart);
}
function crash() {
  document.getElementById("out").textContent = renderSummary(state);
}

async function loadProfile(id) {
  const res = await fetch("/api/profile/" + id);
  if (!res.ok) {
    throw new Error("Profile request failed with HTTP " + res.status);
  }
  return res.json();
}
function reject() {
  loadProfile("u-browser-1"); // not awaited -> unhandledrejection
}

function submitPayment() {
  try {
    try {
      JSON.parse("{invalid");
    } catch (err) {
      throw new Error("Payment payload could not be parsed", { cause: err });
    }
  } catch (err) {
    Sentry.captureException(err, { tags: { flow: "payment" } });
  }
  Sentry.logger.info("Payment form submitted", { "form.fields": 4 });
  Sentry.logger.warn(Sentry.logger.fmt\`Retrying payment for \${"u-browser-1"}\`);
}

window.fixture = { crash, reject };

document.getElementById("checkout").addEventListener("click", async () => {
  console.log("checkout clicked, loading cart");
  const res = await fetch("/api/cart?id=7");
  const cart = await res.json();
  document.getElementById("out").textContent = "items: " + cart.items.length;
});
document.getElementById("pay").addEventListener("click", () => submitPayment());
`;

const BROWSER_HTML = `<!doctype html>
<html>
  <head><meta charset="utf-8"><title>Faultline fixture page</title></head>
  <body>
    <h1>Checkout</h1>
    <button id="checkout">Load cart</button>
    <button id="crash" onclick="window.fixture.crash()">Show total</button>
    <button id="reject" onclick="window.fixture.reject()">Load profile</button>
    <button id="pay">Pay</button>
    <p id="out"></p>
    <script src="/app.js"></script>
  </body>
</html>
`;

async function runBrowserScenario(recorder) {
  await waitForChromium();
  const { build } = await import("esbuild");
  const bundle = await build({
    stdin: {
      contents: BROWSER_PAGE_SCRIPT,
      resolveDir: ROOT,
      sourcefile: "fixture-page.js",
      loader: "js",
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    write: false,
    minify: false,
    define: { __FIXTURE_DSN__: JSON.stringify(dsnFor(recorder.port)) },
    logLevel: "warning",
  });
  recorder.routes.set("/app.js", {
    type: "text/javascript; charset=utf-8",
    body: bundle.outputFiles[0].contents,
  });
  recorder.routes.set("/", { type: "text/html; charset=utf-8", body: BROWSER_HTML });
  recorder.routes.set("/api/cart", {
    type: "application/json",
    body: JSON.stringify({ id: 7, items: [{ sku: "A-1" }, { sku: "B-2" }] }),
  });

  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 30_000,
  });
  try {
    const page = await browser.newPage();
    page.on("pageerror", (e) =>
      console.log(`[capture]   (page error seen by playwright: ${e.message})`),
    );
    // The page is served from "localhost" while the DSN points at "127.0.0.1": a cross-origin
    // POST, like a real deployment where the app and the monitor live on different origins.
    const pageUrl = `http://localhost:${recorder.port}/`;
    const fromBrowser = (prefix) => (r) => r.label.startsWith(prefix);

    recorder.setLabel("browser-pageload");
    console.log("[capture]   step browser-pageload");
    await page.goto(pageUrl, { waitUntil: "load" });
    // pageload idle span ends ~1 s after the last activity; streamed spans flush shortly after.
    await recorder.waitQuiet({
      min: 2,
      pred: fromBrowser("browser-pageload"),
      quietMs: 2500,
      timeoutMs: 20_000,
    });

    recorder.setLabel("browser-window-error");
    console.log("[capture]   step browser-window-error");
    const cartResponse = page.waitForResponse((r) => r.url().includes("/api/cart"));
    await page.click("#checkout");
    await cartResponse;
    await sleep(200);
    await page.click("#crash");
    await recorder.waitQuiet({
      min: 1,
      pred: fromBrowser("browser-window-error"),
      quietMs: 1500,
      timeoutMs: 15_000,
    });

    recorder.setLabel("browser-unhandled-rejection");
    console.log("[capture]   step browser-unhandled-rejection");
    await page.click("#reject");
    await recorder.waitQuiet({
      min: 1,
      pred: fromBrowser("browser-unhandled-rejection"),
      quietMs: 1500,
      timeoutMs: 15_000,
    });

    recorder.setLabel("browser-capture-exception");
    console.log("[capture]   step browser-capture-exception");
    await page.click("#pay");
    await page.evaluate(() => window.Sentry.flush(5000));
    await recorder.waitQuiet({
      min: 1,
      pred: fromBrowser("browser-capture-exception"),
      quietMs: 1500,
      timeoutMs: 15_000,
    });

    recorder.setLabel("browser-unload");
    console.log("[capture]   step browser-unload");
    await page.goto("about:blank");
    await recorder.waitQuiet({ quietMs: 2000, timeoutMs: 8_000 });
    await page.close();
  } finally {
    await browser.close();
  }
}

async function waitForChromium() {
  const deadline = Date.now() + 60_000;
  while (!fs.existsSync(CHROMIUM)) {
    if (Date.now() > deadline)
      throw new Error(`${CHROMIUM} not found (is "apt-get install chromium" done?)`);
    await sleep(1000);
  }
}

// ---------------------------------------------------------------------------------------------
// Scenario: @sentry/nextjs (optional)
// ---------------------------------------------------------------------------------------------

function nextAppFiles(dsn) {
  const init = `dsn: ${JSON.stringify(dsn)},
    release: ${JSON.stringify(RELEASE)},
    environment: ${JSON.stringify(ENVIRONMENT)},
    tracesSampleRate: 1.0,
    enableLogs: true,`;
  return {
    "package.json": JSON.stringify(
      { name: "faultline-next-fixture", private: true, version: "0.0.0" },
      null,
      2,
    ),
    // In v11 withSentryConfig lives in "@sentry/nextjs/config" (CommonJS: use the default import).
    "next.config.mjs": `import sentryConfig from "@sentry/nextjs/config";

const { withSentryConfig } = sentryConfig;

export default withSentryConfig(
  { typescript: { ignoreBuildErrors: true }, poweredByHeader: false },
  { silent: true, telemetry: false, sourcemaps: { disable: true }, release: { create: false, finalize: false } },
);
`,
    "instrumentation.ts": `import * as Sentry from "@sentry/nextjs";

export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    Sentry.init({
    ${init}
    });
  }
}

export const onRequestError = Sentry.captureRequestError;
`,
    "instrumentation-client.ts": `import * as Sentry from "@sentry/nextjs";

Sentry.init({
    ${init}
});

export const onRouterTransitionStart = Sentry.captureRouterTransitionStart;
`,
    "app/layout.tsx": `export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`,
    "app/page.tsx": `import Link from "next/link";

export default function Home() {
  return (
    <main>
      <h1>Faultline Next.js fixture</h1>
      <Link id="to-client" href="/client-error">client error</Link>
    </main>
  );
}
`,
    "app/server-error/page.tsx": `export const dynamic = "force-dynamic";

function readPrice(product: any): number {
  return product.pricing.amount;
}

async function loadProduct(id: string): Promise<number> {
  await new Promise((r) => setTimeout(r, 5));
  const product: any = { id };
  return readPrice(product);
}

export default async function ServerErrorPage() {
  const price = await loadProduct("sku-42");
  return <p>Price: {price}</p>;
}
`,
    "app/api/boom/route.ts": `export const dynamic = "force-dynamic";

function chargeCard(amount: number) {
  throw new Error(\`Card declined for amount \${amount}\`);
}

export async function POST() {
  chargeCard(42);
  return Response.json({ ok: true });
}
`,
    "app/client-error/page.tsx": `"use client";

function parseQuantity(input: string): number {
  if (!/^\\d+$/.test(input)) {
    throw new Error(\`Invalid quantity "\${input}"\`);
  }
  return Number(input);
}

function addToCart(quantity: string) {
  return parseQuantity(quantity);
}

export default function ClientErrorPage() {
  return (
    <main>
      <button
        id="add"
        onClick={() => {
          console.log("adding to cart");
          addToCart("two");
        }}
      >
        Add to cart
      </button>
    </main>
  );
}
`,
  };
}

function runProcess(cmd, args, { cwd, env, timeoutMs, name }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} timed out after ${timeoutMs} ms\n${out.slice(-3000)}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${name} exited with ${code}\n${out.slice(-3000)}`));
    });
  });
}

function freePort() {
  return new Promise((resolve) => {
    const srv = http.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function runNextScenario(recorder, buildDeadline) {
  await waitForChromium();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-next-fixture-"));
  console.log(`[capture] nextjs: app in ${dir}`);
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  for (const [file, text] of Object.entries(nextAppFiles(dsnFor(recorder.port)))) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const nextBin = path.join(ROOT, "node_modules/next/dist/bin/next");
  const env = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    SENTRY_DSN: "",
    NODE_OPTIONS: "",
  };
  console.log("[capture] nextjs: next build --webpack");
  const t0 = Date.now();
  // Webpack rather than Turbopack (a precaution, not tested): node_modules is a symlink pointing
  // outside the app, and Turbopack restricts files to the project root.
  try {
    await runProcess(process.execPath, [nextBin, "build", "--webpack"], {
      cwd: dir,
      env,
      timeoutMs: Math.min(150_000, buildDeadline - Date.now()),
      name: "next build",
    });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  console.log(`[capture] nextjs: built in ${Math.round((Date.now() - t0) / 1000)} s`);

  const appPort = await freePort();
  const server = spawn(
    process.execPath,
    [nextBin, "start", "-p", String(appPort), "-H", "127.0.0.1"],
    {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  let serverOut = "";
  server.stdout.on("data", (d) => (serverOut += d));
  server.stderr.on("data", (d) => (serverOut += d));
  const appUrl = `http://127.0.0.1:${appPort}`;
  let step = "startup";
  recorder.setLabeler(
    (req) =>
      `nextjs-${/Mozilla/.test(req.headers["user-agent"] ?? "") ? "client" : "server"}-${step}`,
  );
  let browser;
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const res = await fetch(`${appUrl}/`);
        await res.text();
        if (res.ok) break;
      } catch {}
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`next start did not come up\n${serverOut.slice(-3000)}`);
      await sleep(250);
    }
    await recorder.waitQuiet({ quietMs: 1000, timeoutMs: 5_000 });

    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 30_000,
    });
    const page = await browser.newPage();
    page.on("pageerror", (e) =>
      console.log(`[capture]   (page error seen by playwright: ${e.message})`),
    );

    step = "ssr-error";
    console.log(`[capture]   step nextjs-*-${step}`);
    await page.goto(`${appUrl}/server-error`, { waitUntil: "load" });
    await recorder.waitQuiet({
      min: 1,
      pred: (r) => r.label === `nextjs-server-${step}`,
      quietMs: 2500,
      timeoutMs: 15_000,
    });

    step = "route-error";
    console.log(`[capture]   step nextjs-*-${step}`);
    await page.evaluate(async () => {
      await fetch("/api/boom", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
    });
    await recorder.waitQuiet({
      min: 1,
      pred: (r) => r.label === `nextjs-server-${step}`,
      quietMs: 2000,
      timeoutMs: 15_000,
    });

    step = "click-error";
    console.log(`[capture]   step nextjs-*-${step}`);
    await page.goto(`${appUrl}/client-error`, { waitUntil: "load" });
    await page.waitForTimeout(500);
    await page.click("#add");
    await recorder.waitQuiet({
      min: 1,
      pred: (r) => r.label.startsWith(`nextjs-client-${step}`),
      quietMs: 2500,
      timeoutMs: 15_000,
    });

    step = "unload";
    console.log(`[capture]   step nextjs-*-${step}`);
    await page.goto("about:blank");
    await recorder.waitQuiet({ quietMs: 2000, timeoutMs: 8_000 });
  } finally {
    await browser?.close().catch(() => {});
    step = "shutdown";
    if (server.exitCode === null) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {}
      await Promise.race([new Promise((r) => server.once("exit", r)), sleep(5_000)]);
      if (server.exitCode === null && server.signalCode === null) {
        try {
          process.kill(-server.pid, "SIGKILL");
        } catch {}
      }
    }
    await recorder.waitQuiet({ quietMs: 500, timeoutMs: 3_000 });
    recorder.setLabeler(null);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Sanity checks on what was captured; returns a list of problems. */
function verifyFixtures(written, sdks) {
  const problems = [];
  const check = (ok, what) => {
    console.log(`[capture] ${ok ? "ok  " : "FAIL"} ${what}`);
    if (!ok) problems.push(`check failed: ${what}`);
  };
  const events = (prefix) =>
    written
      .filter((f) => f.scenario.startsWith(prefix))
      .flatMap((f) => f.items.filter((i) => i.type === "event"));
  if (sdks.includes("node")) {
    const ex = events("node-exception");
    check(
      ex.some(
        (e) =>
          e.exceptions?.[0]?.frames > 2 &&
          e.breadcrumbs >= 3 &&
          e.user &&
          e.tags &&
          e.contexts?.includes("order"),
      ),
      "node-exception: event with frames, breadcrumbs, user, tags and the custom context",
    );
    check(
      events("node-linked-errors").some((e) => e.exceptions?.length >= 3),
      "node-linked-errors: 3-level cause chain",
    );
    check(
      events("node-message").some((e) => e.level === "warning"),
      "node-message: warning-level message event",
    );
    check(
      written.some(
        (f) =>
          f.scenario === "node-large-gzip" &&
          f.contentEncoding === "gzip" &&
          f.itemTypes.includes("event"),
      ),
      "node-large-gzip: gzip-encoded event",
    );
    check(
      written.some((f) => f.scenario === "node-transaction" && f.itemTypes.includes("span")),
      "node-transaction: span container",
    );
    check(
      written.some((f) => f.scenario === "node-logs" && f.itemTypes.includes("log")),
      "node-logs: log container",
    );
    check(
      written.some(
        (f) => f.scenario === "node-static-transaction" && f.itemTypes.includes("transaction"),
      ),
      "node-static-transaction: transaction item",
    );
    check(
      events("node-uncaught-exception").some((e) => e.exceptions?.[0]?.handled === false),
      "node-uncaught-exception: unhandled exception event",
    );
  }
  if (sdks.includes("browser")) {
    for (const step of [
      "browser-window-error",
      "browser-unhandled-rejection",
      "browser-capture-exception",
    ]) {
      check(
        events(step).some((e) => e.exceptions?.some((x) => x.frames > 0)),
        `${step}: exception event with stack frames`,
      );
    }
    check(
      events("browser-window-error").some((e) =>
        ["ui.click", "console", "fetch"].every((c) => e.breadcrumbCategories?.includes(c)),
      ),
      "browser-window-error: click, console and fetch breadcrumbs",
    );
  }
  const total = fs
    .readdirSync(OUT_DIR)
    .reduce((n, f) => n + fs.statSync(path.join(OUT_DIR, f)).size, 0);
  check(total < 2 * 1024 * 1024, `fixture folder is ${Math.round(total / 1024)} KiB (< 2 MiB)`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Envelope parsing + fixture writing
// ---------------------------------------------------------------------------------------------

function decodeBody(body, encoding) {
  const enc = (encoding || "").toLowerCase();
  if (enc === "gzip" || (!enc && body[0] === 0x1f && body[1] === 0x8b))
    return zlib.gunzipSync(body);
  if (enc === "br") return zlib.brotliDecompressSync(body);
  if (enc === "deflate") return zlib.inflateSync(body);
  return body;
}

/** Envelope: header line, then items: item header line + payload (`length` bytes, or up to \n). */
function parseEnvelope(buf) {
  let pos = 0;
  const readLine = () => {
    let end = buf.indexOf(0x0a, pos);
    if (end === -1) end = buf.length;
    const line = buf.subarray(pos, end);
    pos = end + 1;
    return line;
  };
  const header = JSON.parse(readLine().toString("utf8"));
  const items = [];
  while (pos < buf.length) {
    const headerLine = readLine();
    if (headerLine.length === 0) continue; // tolerate trailing newline
    const itemHeader = JSON.parse(headerLine.toString("utf8"));
    let payload;
    if (typeof itemHeader.length === "number") {
      payload = buf.subarray(pos, pos + itemHeader.length);
      pos += itemHeader.length;
      if (buf[pos] === 0x0a) pos += 1;
    } else {
      payload = readLine();
    }
    items.push({ header: itemHeader, payload });
  }
  return { header, items };
}

function summarizeItem({ header, payload }) {
  const out = { type: header.type, payloadBytes: payload.length };
  for (const k of ["length", "content_type", "item_count", "filename", "attachment_type"]) {
    if (header[k] !== undefined) out[k] = header[k];
  }
  let json = null;
  if (header.type !== "attachment") {
    try {
      json = JSON.parse(payload.toString("utf8"));
    } catch {}
  }
  if (!json) return out;
  switch (header.type) {
    case "event": {
      const exc = json.exception?.values;
      if (exc?.length) {
        out.exceptions = exc.map((e) => ({
          type: e.type,
          value: e.value,
          mechanism: e.mechanism?.type,
          handled: e.mechanism?.handled,
          frames: e.stacktrace?.frames?.length ?? 0,
        }));
      }
      if (json.message)
        out.message =
          typeof json.message === "string"
            ? json.message
            : (json.message.formatted ?? json.message.message);
      if (json.level) out.level = json.level;
      const crumbs = Array.isArray(json.breadcrumbs)
        ? json.breadcrumbs
        : (json.breadcrumbs?.values ?? []);
      out.breadcrumbs = crumbs.length;
      out.breadcrumbCategories = [...new Set(crumbs.map((b) => b.category ?? b.type))];
      if (json.tags) out.tags = json.tags;
      if (json.user) out.user = json.user;
      if (json.contexts) out.contexts = Object.keys(json.contexts);
      if (json.platform) out.platform = json.platform;
      if (json.transaction) out.transaction = json.transaction;
      if (json.request?.url) out.requestUrl = json.request.url;
      break;
    }
    case "transaction":
      out.transaction = json.transaction;
      out.spans = json.spans?.length ?? 0;
      break;
    case "span":
      out.spans = (json.items ?? []).map((s) => s.name ?? s.description);
      break;
    case "log":
      out.logs = (json.items ?? []).map((l) => `${l.level}: ${l.body}`);
      break;
    case "session":
      out.status = json.status;
      out.init = json.init;
      out.errors = json.errors;
      break;
    case "sessions":
      out.aggregates = json.aggregates;
      break;
    case "client_report":
      out.discarded_events = json.discarded_events;
      break;
  }
  return out;
}

function describe(label, items) {
  const parts = items.map((it) => {
    if (it.exceptions && it.message) {
      return `event (${it.level}): message "${it.message}" + type-less exception with ${it.exceptions[0].frames} frames`;
    }
    if (it.exceptions) {
      const top = it.exceptions[it.exceptions.length - 1];
      const chain = it.exceptions.length > 1 ? ` (+${it.exceptions.length - 1} linked)` : "";
      return `event: ${top.type}: ${top.value} [${top.mechanism}, handled=${top.handled}]${chain}`;
    }
    if (it.type === "event" && it.message) return `event (${it.level}): ${it.message}`;
    if (it.type === "transaction")
      return `transaction "${it.transaction}" with ${it.spans} child spans`;
    if (it.type === "span")
      return `span container (${it.item_count ?? it.spans?.length} spans: ${it.spans?.slice(0, 4).join(", ")}${it.spans?.length > 4 ? ", …" : ""})`;
    if (it.type === "log") return `log container (${it.logs?.length} logs)`;
    if (it.type === "session")
      return `session status=${it.status}${it.init ? " init" : ""} errors=${it.errors}`;
    if (it.type === "sessions") return `session aggregates`;
    if (it.type === "client_report") return `client report`;
    if (it.type === "attachment") return `attachment ${it.filename} (${it.length} B)`;
    return it.type;
  });
  return `${label}: ${parts.join("; ")}`;
}

function writeFixtures(records, sdksRun) {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  // Only replace the fixtures of the SDKs that ran (e.g. `--no-nextjs` keeps the nextjs-* ones).
  for (const f of fs.readdirSync(OUT_DIR)) {
    const m = /^(node|browser|nextjs)-.*\.(envelope|json)$/.exec(f);
    if (m && sdksRun.includes(m[1])) fs.unlinkSync(path.join(OUT_DIR, f));
  }
  const sdkInfo = {
    node: { pkg: "@sentry/node", version: pkgVersion("@sentry/node") },
    browser: { pkg: "@sentry/browser", version: pkgVersion("@sentry/browser") },
    nextjs: { pkg: "@sentry/nextjs", version: pkgVersion("@sentry/nextjs") },
  };
  const counters = new Map();
  const written = [];
  for (const [seq, rec] of records.entries()) {
    const sdk = rec.label.split("-")[0];
    const n = (counters.get(rec.label) ?? 0) + 1;
    counters.set(rec.label, n);
    const base = `${rec.label}-${n}`;
    const contentEncoding = rec.headers["content-encoding"];
    let parsed = null;
    let parseError = null;
    let decoded = null;
    try {
      decoded = decodeBody(rec.body, contentEncoding);
      parsed = parseEnvelope(decoded);
    } catch (err) {
      parseError = String(err?.message || err);
    }
    const items = parsed ? parsed.items.map(summarizeItem) : [];
    const sdkFromEnvelope = parsed?.header?.sdk ?? null;
    const sidecar = {
      file: `${base}.envelope`,
      seq,
      description: describe(rec.label, items),
      scenario: rec.label,
      sdk,
      sdkPackage: sdkInfo[sdk]?.pkg ?? null,
      sdkVersion: sdkInfo[sdk]?.version ?? null,
      sdkName: sdkFromEnvelope?.name ?? null,
      publicKey: PUBLIC_KEY,
      projectId: PROJECT_ID,
      method: rec.method,
      path: rec.path,
      query: rec.query,
      headers: rec.headers,
      contentEncoding: contentEncoding ?? null,
      bytes: rec.body.length,
      decompressedBytes: decoded ? decoded.length : null,
      envelopeHeader: parsed?.header ?? null,
      itemTypes: items.map((i) => i.type),
      items,
      ...(parseError ? { parseError } : {}),
      capturedWith: {
        node: process.version,
        chromium: sdk === "browser" || sdk === "nextjs" ? rec.headers["user-agent"] : undefined,
      },
    };
    fs.writeFileSync(path.join(OUT_DIR, `${base}.envelope`), rec.body);
    fs.writeFileSync(path.join(OUT_DIR, `${base}.json`), `${JSON.stringify(sidecar, null, 2)}\n`);
    written.push(sidecar);
  }
  const all = fs
    .readdirSync(OUT_DIR)
    .filter((f) => /^(node|browser|nextjs)-.*\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(OUT_DIR, f), "utf8")));
  const order = { node: 0, browser: 1, nextjs: 2 };
  all.sort(
    (a, b) =>
      order[a.sdk] - order[b.sdk] || (a.seq ?? 0) - (b.seq ?? 0) || a.file.localeCompare(b.file),
  );
  writeReadme(all);
  return written;
}

function writeReadme(written) {
  const esc = (s) => String(s).replace(/\|/g, "\\|").replace(/\n/g, " ");
  const rows = written.map(
    (f) =>
      `| \`${f.file}\` | ${f.sdkPackage ?? f.sdk} ${f.sdkVersion ?? ""} | ${esc(f.description.replace(/^[^:]+: /, ""))} | ${f.itemTypes.join(", ")} | ${f.contentEncoding ? `${f.contentEncoding} (${f.bytes} B → ${f.decompressedBytes} B)` : `no (${f.bytes} B)`} |`,
  );
  const text = `# Sentry SDK envelope fixtures

Real request bodies sent by the real Sentry JavaScript SDKs to a local recording server.
**Do not edit these files by hand** — regenerate them:

\`\`\`sh
node scripts/capture-fixtures.mjs              # needs /usr/bin/chromium (apt-get install chromium)
node scripts/capture-fixtures.mjs --no-nextjs  # skip the optional Next.js scenario (keeps nextjs-* files)
node scripts/capture-fixtures.mjs --only=node   # only one SDK (node | browser | nextjs, comma-separated)
\`\`\`

It needs only what is in \`node_modules\` (@sentry/node, @sentry/browser, @sentry/nextjs, esbuild,
playwright-core, next, react) plus Debian Chromium at \`/usr/bin/chromium\`, and ends by itself in ~1.5 min
(most of it is \`next build\`).

The script starts a recorder on \`127.0.0.1:<random port>\`, points each SDK at
\`http://${PUBLIC_KEY}@127.0.0.1:<port>/${PROJECT_ID}\`, drives a set of named steps and stores every
POST it receives. Existing \`node-*\`, \`browser-*\` and \`nextjs-*\` fixtures are deleted and rewritten.
Event ids, trace ids, timestamps, ports and the order of requests inside a step change on every run.

## Files

- \`<sdk>-<step>-<n>.envelope\` — the request body **byte for byte as received** (gzip bodies stay gzipped;
  check the sidecar's \`contentEncoding\`). Nothing is rewritten: the public key is the fixed
  \`${PUBLIC_KEY}\` (project \`${PROJECT_ID}\`); it appears in the query string (\`sentry_key=\`) and in
  the envelope header's \`trace.public_key\`. Substitute it (and the \`/api/42/\` path) to replay into
  another project.
- \`<same name>.json\` — sidecar: \`sdk\`, \`sdkPackage\`, \`sdkVersion\`, \`sdkName\`, \`publicKey\`, \`projectId\`,
  \`method\`, \`path\`, \`query\` (without \`?\`), \`headers\` (content-type, content-encoding, x-sentry-auth,
  authorization, content-length, transfer-encoding, user-agent, origin; \`null\` when absent),
  \`contentEncoding\`, \`bytes\`, \`decompressedBytes\`, \`envelopeHeader\`, \`itemTypes\` (in envelope order)
  and \`items\` (per-item summary: header fields, payload size, exception types/frames, span names, …).

Parsing rule used for \`itemTypes\`: line 1 is the envelope header JSON; then each item is a header line
followed by its payload — if the item header has a numeric \`length\`, exactly that many bytes followed by an
optional \`\\n\`, otherwise everything up to the next \`\\n\` (or end of body).

## What the SDKs actually send (observed when these fixtures were captured)

- **Auth is in the query string only**: \`?sentry_version=7&sentry_key=<key>&sentry_client=sentry.javascript.<sdk>%2F<version>\`.
  No \`X-Sentry-Auth\`, no \`Authorization\` header from any of the three SDKs. Path is \`/api/42/envelope/\`.
- **@sentry/node (and the Next.js server side)**: no \`Content-Type\` header at all, \`Transfer-Encoding: chunked\`
  (no \`Content-Length\`), \`User-Agent: sentry.javascript.node/11.12.0\` (\`sentry.javascript.nextjs/…\` for Next).
  Bodies over 32 KiB are sent with \`Content-Encoding: gzip\` (see the \`node-large-gzip\` fixture).
- **Browser (and the Next.js client side)**: \`fetch\` with \`Content-Type: text/plain;charset=UTF-8\` (a CORS-"simple"
  request, so no preflight even cross-origin), \`Content-Length\`, an \`Origin\` header, never compressed.
- **Envelope headers never contain \`dsn\`** (only with a tunnel). Event/transaction envelopes: \`event_id\`, \`sent_at\`,
  \`sdk\`, \`trace\` (dynamic sampling context). Session envelopes: \`sent_at\` + \`sdk\`, no \`event_id\`.
  Log envelopes: only \`sdk\` (no \`sent_at\`, no \`event_id\`). Span envelopes: \`sent_at\`, \`trace\`, \`sdk\`.
- **Spans are streamed by default in v11** (\`traceLifecycle: "stream"\`): \`startSpan\` produces a
  \`{"type":"span","item_count":N,"content_type":"application/vnd.sentry.items.span.v2+json"}\` item whose payload is
  \`{"version":2,"items":[…]}\` (attributes as \`{"value":…,"type":…}\`, \`is_segment\`, \`start_timestamp\`/\`end_timestamp\`).
  A classic \`transaction\` item only appears with \`traceLifecycle: "static"\` (\`node-static-transaction\`).
  Spans of one trace can arrive split over several envelopes.
- **Logs**: \`{"type":"log","item_count":N,"content_type":"application/vnd.sentry.items.log+json"}\`, payload \`{"items":[…]}\`.
- **Sessions**: a \`session\` item is sent with the first error (node) / at page load (browser) and on updates;
  browser status \`"unhandled"\` appears after an unhandled error; node reports \`"crashed"\` after an unhandled rejection and
  \`"exited"\` at process end. An HTTP server sends \`sessions\` (aggregates) instead.
- **Attachments** carry a numeric \`length\` and may contain \`\\n\`, \`\\r\` and arbitrary bytes (\`node-attachment\`).
- **\`captureMessage\` on node** sends \`message\` plus an \`exception\` value *without \`type\`* that carries a stack trace.
- \`breadcrumbs\` is a plain array in the event payload (not \`{values: […]}\`).
- No \`client_report\` item was sent in any scenario (nothing was dropped).

## Fixtures

| File | SDK | Contains | Item types | Compressed |
| --- | --- | --- | --- | --- |
${rows.join("\n")}
`;
  fs.writeFileSync(path.join(OUT_DIR, "README.md"), text);
}

// Entry point (at the end so every top-level const above is initialised).
if (process.argv[2] === "--child") {
  await runNodeChild(process.argv[3], Number(process.argv[4]));
} else {
  await main();
}
