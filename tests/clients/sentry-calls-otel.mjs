// The other end of a joined trace: an application instrumented with @sentry/node calls the
// OpenTelemetry-instrumented service at INVENTORY_URL inside a transaction. The SDK's http
// integration propagates the trace with sentry-trace, baggage and (propagateTraceparent) W3C
// traceparent, which the OpenTelemetry side reads. Prints the trace id.
import http from "node:http";
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "storefront@1.0.0",
  environment: "e2e",
  tracesSampleRate: 1,
  propagateTraceparent: true,
  tracePropagationTargets: [/^http:\/\/127\.0\.0\.1/],
});

const get = (url) =>
  new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = "";
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => resolve(body));
      })
      .on("error", reject);
  });

const traceId = await Sentry.startSpan(
  { name: "GET /product/A-1", op: "http.server" },
  async (root) => {
    const stock = JSON.parse(await get(`${process.env.INVENTORY_URL}/inventory?sku=A-1`));
    if (stock.available !== 2) throw new Error(`unexpected answer ${JSON.stringify(stock)}`);
    return root.spanContext().traceId;
  },
);

await Sentry.flush(5000);
console.log(JSON.stringify({ traceId }));
