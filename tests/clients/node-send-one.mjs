// A real @sentry/node application sending one error to SENTRY_DSN; prints the HTTP status
// Faultline answered (the SDK's transport sees it, the application normally does not).
import * as Sentry from "@sentry/node";

const statuses = [];
Sentry.init({
  dsn: process.env.SENTRY_DSN,
  tracesSampleRate: 0,
  transport: (options) => {
    const inner = Sentry.makeNodeTransport(options);
    return {
      async send(envelope) {
        const result = await inner.send(envelope);
        statuses.push(result.statusCode);
        return result;
      },
      flush: (timeout) => inner.flush(timeout),
    };
  },
});
Sentry.captureException(new Error(process.env.ERROR_MESSAGE ?? "checkout failed"));
await Sentry.close(5000);
console.log(JSON.stringify({ statuses }));
