// A real application using the real @sentry/node SDK with tracing on: twelve requests of one
// route with nested spans (three of them failing; one process without incoming requests, so
// they share one trace), and one request whose span description is an XSS payload.
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "shop@3.2.0",
  environment: "e2e",
  tracesSampleRate: 1,
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const XSS = process.env.XSS_PAYLOAD ?? "<img src=x onerror=alert(1)>";

const traces = [];
for (let i = 0; i < 12; i++) {
  const traceId = await Sentry.startSpan(
    { name: "GET /api/items", op: "http.server", attributes: { "items.page": i } },
    async (root) => {
      await Sentry.startSpan({ name: "SELECT items", op: "db.query" }, () => sleep(2 + i * 3));
      await Sentry.startSpan({ name: "render list", op: "function" }, () => sleep(1 + (i % 3)));
      if (i % 4 === 3) root.setStatus({ code: 2, message: "internal_error" });
      return root.spanContext().traceId;
    },
  );
  traces.push(traceId);
}

const xssTrace = await Sentry.startSpan({ name: "GET /xss", op: "http.server" }, async (root) => {
  await Sentry.startSpan({ name: XSS, op: "db.query", attributes: { "evil.attr": XSS } }, () =>
    sleep(3),
  );
  return root.spanContext().traceId;
});

await Sentry.flush(5000);
console.log(JSON.stringify({ traces, xssTrace }));
