// A real application run with the real @sentry/node SDK, for the releases, feedback and
// stats pages. RELEASE names the release, USER_ID the user; mode (argv[2]): "healthy" ends
// cleanly, "crash" dies of an uncaught exception, "errors" reports a handled error and user
// feedback about it (FEEDBACK_MESSAGE, FEEDBACK_URL), "burst" sends BURST errors at once
// (for a key's rate limit). Prints the ids it sent as its last line.
import * as Sentry from "@sentry/node";

const mode = process.argv[2] ?? "healthy";
Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: process.env.RELEASE,
  environment: process.env.ENVIRONMENT ?? "production",
  tracesSampleRate: 0,
});
Sentry.setUser({ id: process.env.USER_ID ?? `user-${mode}` });

function exportReport() {
  throw new Error("export to CSV failed");
}

if (mode === "errors") {
  const ids = {};
  try {
    exportReport();
  } catch (err) {
    ids.error = Sentry.captureException(err);
  }
  ids.feedback = Sentry.captureFeedback({
    message: process.env.FEEDBACK_MESSAGE ?? "It broke",
    name: process.env.FEEDBACK_NAME ?? "Ada Lovelace",
    email: "ada@example.com",
    url: process.env.FEEDBACK_URL,
    associatedEventId: ids.error,
  });
  await Sentry.flush(10_000);
  console.log(JSON.stringify(ids));
}

if (mode === "burst") {
  const n = Number(process.env.BURST ?? 3);
  for (let i = 0; i < n; i++) {
    Sentry.captureException(new Error(`burst error ${i}`));
    // One envelope each: the key's limit refuses all but the first.
    await Sentry.flush(5_000);
  }
  console.log(JSON.stringify({ sent: n }));
}

if (mode === "crash") {
  setTimeout(() => {
    throw new Error("unrecoverable state");
  }, 10);
}
