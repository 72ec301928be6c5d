// A real application using the real @sentry/node SDK with tracing and logs on: one request
// with nested spans, an error inside the innermost span, and three logs. Prints the trace id.
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "shop@3.1.0",
  environment: "e2e",
  tracesSampleRate: 1,
  enableLogs: true,
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const traceId = await Sentry.startSpan(
  { name: "POST /orders", op: "http.server" },
  async (root) => {
    await Sentry.startSpan({ name: "load cart", op: "db.query" }, () => sleep(5));
    await Sentry.startSpan({ name: "charge card", op: "http.client" }, async () => {
      await Sentry.startSpan({ name: "sign request", op: "function" }, async () => {
        await sleep(2);
        try {
          throw new Error("card declined for order 7");
        } catch (err) {
          Sentry.captureException(err);
        }
      });
    });
    Sentry.logger.info(Sentry.logger.fmt`Order ${7} placed by ${"user-17"}`, {
      "order.total": 41.5,
    });
    Sentry.logger.warn("Inventory low", { sku: "A-1", remaining: 2 });
    Sentry.logger.error("Payment retry exhausted", { attempts: 3, final: true });
    return root.spanContext().traceId;
  },
);

await Sentry.flush(5000);
console.log(JSON.stringify({ traceId }));
