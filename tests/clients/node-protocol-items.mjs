// A real application using the real @sentry/node SDK for release health, cron monitors,
// user feedback and attachments. Mode (argv[2]): "healthy" exits cleanly, "errors" reports
// handled errors with an attachment, feedback and check-ins, "crash" dies of an uncaught
// exception. Every envelope item it sends is logged to ENVELOPE_LOG (one JSON line each:
// type and the quantity Sentry's stats count) so the test can compare with what was stored.
import fs from "node:fs";
import * as Sentry from "@sentry/node";

const mode = process.argv[2] ?? "healthy";
Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "shop@3.0.0",
  environment: "e2e",
  tracesSampleRate: 0,
});
Sentry.setUser({ id: `user-${mode}` });

Sentry.getClient()?.on("beforeEnvelope", (envelope) => {
  for (const [header, payload] of envelope[1]) {
    let quantity = 1;
    if (header.type === "attachment")
      quantity = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
    if (header.type === "sessions")
      quantity = payload.aggregates.reduce(
        (n, a) => n + (a.exited ?? 0) + (a.errored ?? 0) + (a.crashed ?? 0) + (a.abnormal ?? 0),
        0,
      );
    const line = { type: header.type, quantity, status: payload?.status };
    fs.appendFileSync(process.env.ENVELOPE_LOG, `${JSON.stringify(line)}\n`);
  }
});

function generateReport() {
  throw new Error("report generation failed");
}

if (mode === "errors") {
  const ids = {};
  Sentry.withScope((scope) => {
    scope.addAttachment({
      filename: "report.bin",
      data: new Uint8Array(fs.readFileSync(process.env.ATTACHMENT_FILE)),
      contentType: "application/octet-stream",
    });
    scope.addAttachment({ filename: "notes.txt", data: "line one\nline two\n" });
    try {
      generateReport();
    } catch (err) {
      ids.error = Sentry.captureException(err);
    }
  });
  ids.feedback = Sentry.captureFeedback({
    message: "The report button gives me an error <script>alert(1)</script>",
    name: "Ada Lovelace",
    email: "ada@example.com",
    url: "https://shop.example.com/reports",
    associatedEventId: ids.error,
  });
  await Sentry.withMonitor("nightly-report", async () => new Promise((r) => setTimeout(r, 300)), {
    schedule: { type: "crontab", value: "*/10 * * * *" },
    checkinMargin: 2,
    maxRuntime: 5,
    timezone: "Europe/Berlin",
  });
  const checkInId = Sentry.captureCheckIn(
    { monitorSlug: "hourly-sync", status: "in_progress" },
    { schedule: { type: "interval", value: 1, unit: "hour" }, checkinMargin: 5 },
  );
  await new Promise((r) => setTimeout(r, 200));
  Sentry.captureCheckIn({ checkInId, monitorSlug: "hourly-sync", status: "error" });
  await Sentry.flush(10_000);
  console.log(JSON.stringify(ids));
}

if (mode === "crash") {
  setTimeout(() => {
    throw new Error("unrecoverable state");
  }, 10);
}
// "healthy" and "errors" end on their own: the SDK ends the process session at beforeExit.
