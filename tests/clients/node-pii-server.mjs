// A real web application using the real @sentry/node SDK with sendDefaultPii: its HTTP server
// (instrumented by the SDK) gets a checkout form post carrying an Authorization header, a
// session cookie, a password field and a card number, and reports the error it raises.
// @sentry/node 11 already filters Authorization and Cookie in the request it records; like
// many error handlers, this one also attaches the whole request (headers and form) to the
// event, and a breadcrumb logs the form: that is what reaches the server unfiltered.
// The secrets come from the environment so the test knows exactly what to look for.
import http from "node:http";
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: "shop@3.1.0",
  environment: "e2e",
  sendDefaultPii: true,
  tracesSampleRate: 0,
});

const { PII_TOKEN, PII_COOKIE, PII_PASSWORD, PII_CARD } = process.env;

function chargeCard(card) {
  throw new Error(`payment declined for card ${card}`);
}

const server = http.createServer(async (req, res) => {
  // Read as a stream of promises: the SDK's request scope follows awaits, not event callbacks.
  let body = "";
  for await (const chunk of req) body += chunk;
  Sentry.addBreadcrumb({
    category: "auth",
    message: "sign-in form received",
    data: { password: new URLSearchParams(body).get("password"), user: "alice" },
  });
  try {
    chargeCard(new URLSearchParams(body).get("card"));
  } catch (err) {
    Sentry.withScope((scope) => {
      scope.setExtra("request", {
        method: req.method,
        headers: req.headers,
        form: Object.fromEntries(new URLSearchParams(body)),
      });
      Sentry.captureException(err);
    });
    res.statusCode = 402;
    res.end("declined");
    return;
  }
  res.end("ok");
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();
const form = new URLSearchParams({ username: "alice", password: PII_PASSWORD, card: PII_CARD });
const answer = await fetch(`http://127.0.0.1:${port}/checkout?session_id=${PII_COOKIE}`, {
  method: "POST",
  headers: {
    authorization: `Bearer ${PII_TOKEN}`,
    cookie: `session=${PII_COOKIE}; theme=dark`,
    "content-type": "application/x-www-form-urlencoded",
  },
  body: form.toString(),
});
await answer.text();
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await Sentry.flush(5000);
