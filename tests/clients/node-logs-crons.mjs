// A real application using the real @sentry/node SDK with logs and cron monitors: logs of
// every level inside a traced request (one body and one attribute carrying markup), then
// three withMonitor jobs — one that succeeds on a daily Berlin schedule, one that fails, and
// one every minute that will later be missed. Prints the trace id.
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "shop@4.2.0",
  environment: "e2e",
  tracesSampleRate: 1,
  enableLogs: true,
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const traceId = await Sentry.startSpan({ name: "GET /cart", op: "http.server" }, async (root) => {
  Sentry.logger.trace("cart lookup begins", { cart: "c-9" });
  Sentry.logger.debug("cache miss for cart c-9", { cache: "redis" });
  Sentry.logger.info(Sentry.logger.fmt`Order ${7} placed by ${"user-17"}`, { "order.id": "o-7" });
  Sentry.logger.warn("Inventory low", { sku: "A-1", remaining: 2 });
  Sentry.logger.error("Payment retry exhausted", { attempts: 3, final: true });
  Sentry.logger.fatal("Checkout worker crashed", { worker: 4 });
  Sentry.logger.info(`<img src=x onerror=alert("xss-log")> user note`, {
    note: `<script>alert("xss-attr")</script>`,
  });
  return root.spanContext().traceId;
});

await Sentry.withMonitor("nightly-report", () => sleep(300), {
  schedule: { type: "crontab", value: "0 2 * * *" },
  timezone: "Europe/Berlin",
  checkinMargin: 5,
  maxRuntime: 30,
});
try {
  await Sentry.withMonitor(
    "hourly-sync",
    async () => {
      await sleep(150);
      throw new Error("sync failed");
    },
    { schedule: { type: "interval", value: 1, unit: "hour" }, checkinMargin: 5 },
  );
} catch {
  // the check-in records the error
}
await Sentry.withMonitor("every-minute", () => sleep(50), {
  schedule: { type: "crontab", value: "* * * * *" },
  checkinMargin: 1,
});

await Sentry.flush(10_000);
console.log(JSON.stringify({ traceId }));
