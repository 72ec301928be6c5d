// The application scripts/make-upgrade-fixture.mjs runs against the Faultline that makes an
// upgrade fixture: the real @sentry/node SDK sending what a month of a real install holds.
// argv[2] is the mode:
//   "app"   errors (three issues; the SDK's dedupe keeps one of three identical ones), an
//           attachment, a traced request with nested spans, logs, cron check-ins and feedback;
//           prints {errors, traceId, feedback} as JSON (the last error has the attachment)
//   "crash" ends with an uncaught exception (a crashed session)
// Every mode runs with release health on, so the process's own session is sent when it ends.
import * as Sentry from "@sentry/node";

const mode = process.argv[2] ?? "app";
Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "shop@1.0.0",
  environment: "production",
  tracesSampleRate: 1,
  enableLogs: true,
});
Sentry.setUser({ id: `user-${mode}`, email: `${mode}@shop.example.com` });
Sentry.setTag("fixture", "upgrade");

/** The attachment's bytes, checked by tests/upgrade.test.ts. */
const ATTACHMENT = "order 7: 41.50 EUR, card ending 4242\n";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function parseCart(input) {
  return JSON.parse(input);
}

function chargeCard(amount) {
  throw new Error(`card declined for amount ${amount}`);
}

if (mode === "app") {
  const errors = [];
  for (let i = 0; i < 3; i++) {
    try {
      parseCart("{not json");
    } catch (err) {
      errors.push(Sentry.captureException(err));
    }
  }
  errors.push(Sentry.captureMessage("Inventory sync took longer than 30 s", "warning"));
  const traceId = await Sentry.startSpan(
    { name: "POST /checkout", op: "http.server" },
    async (root) => {
      await Sentry.startSpan({ name: "SELECT cart", op: "db.query" }, () => sleep(5));
      await Sentry.startSpan({ name: "charge card", op: "http.client" }, async () => {
        await sleep(2);
        try {
          chargeCard(41.5);
        } catch (err) {
          // An attachment: on SQLite a file beside the database, which an upgrade must keep.
          Sentry.withScope((scope) => {
            scope.addAttachment({ filename: "receipt.txt", data: ATTACHMENT });
            errors.push(Sentry.captureException(err));
          });
        }
      });
      Sentry.logger.info(Sentry.logger.fmt`Checkout by ${"user-17"} for ${41.5}`, { cart: 7 });
      Sentry.logger.warn("Inventory low", { sku: "A-1", remaining: 2 });
      Sentry.logger.error("Payment retry exhausted", { attempts: 3 });
      return root.spanContext().traceId;
    },
  );
  const feedback = Sentry.captureFeedback({
    message: "Checkout said my card was declined, but it was charged",
    name: "Ada Lovelace",
    email: "ada@example.com",
    url: "https://shop.example.com/checkout",
    associatedEventId: errors.at(-1),
  });
  await Sentry.withMonitor("nightly-report", () => sleep(100), {
    schedule: { type: "crontab", value: "0 3 * * *" },
    checkinMargin: 5,
    maxRuntime: 30,
    timezone: "Europe/Berlin",
  });
  const checkInId = Sentry.captureCheckIn(
    { monitorSlug: "hourly-sync", status: "in_progress" },
    { schedule: { type: "interval", value: 1, unit: "hour" }, checkinMargin: 5 },
  );
  await sleep(50);
  Sentry.captureCheckIn({ checkInId, monitorSlug: "hourly-sync", status: "error" });
  await Sentry.flush(10_000);
  console.log(JSON.stringify({ errors, traceId, feedback }));
}

if (mode === "crash") {
  setTimeout(() => {
    throw new Error("unrecoverable state in worker");
  }, 10);
}
