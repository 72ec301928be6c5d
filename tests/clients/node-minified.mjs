// A real @sentry/node application whose code is a minified bundle (BUNDLE, built by
// tests/helpers/minified-app.ts with debug IDs injected by sentry-cli): it calls the
// bundle's main(ITEMS), which throws, and reports the error to SENTRY_DSN with
// SENTRY_RELEASE.
import { createRequire } from "node:module";
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: process.env.SENTRY_RELEASE,
  tracesSampleRate: 0,
});
const app = createRequire(import.meta.url)(process.env.BUNDLE);
try {
  app.main(JSON.parse(process.env.ITEMS ?? "[5,6,7]"));
} catch (err) {
  Sentry.captureException(err);
}
await Sentry.close(10_000);
