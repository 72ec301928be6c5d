// The real @sentry/node SDK sending five errors one after the other against a key limited to
// two events per window: it must stop sending after the first 429 for the announced time.
import * as Sentry from "@sentry/node";

Sentry.init({ dsn: process.env.SENTRY_DSN, tracesSampleRate: 0 });
for (let i = 1; i <= 5; i++) {
  Sentry.captureException(new Error(`rate limited error ${i}`));
  await Sentry.flush(5000);
}
await Sentry.close(5000);
