// A real application using the real @sentry/node SDK: three errors from two code paths.
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "shop@2.4.0",
  environment: "e2e",
  tracesSampleRate: 0,
});
Sentry.setTag("region", "eu-west");
Sentry.setUser({ id: "user-17", email: "ada@example.com" });

function loadOrder(id) {
  throw new Error(`order ${id} could not be loaded`);
}
function checkout(id) {
  Sentry.addBreadcrumb({
    category: "checkout",
    message: `checkout started for ${id}`,
    level: "info",
  });
  loadOrder(id);
}
function renderInvoice() {
  const invoice = undefined;
  return invoice.total; // TypeError, from another code path
}

for (const id of [101, 102]) {
  try {
    checkout(id);
  } catch (err) {
    Sentry.captureException(err);
  }
}
try {
  renderInvoice();
} catch (err) {
  Sentry.captureException(err);
}
await Sentry.flush(5000);
