import * as Sentry from "@sentry/nextjs";
import { env } from "../env";
import { findSelfMonitoringTarget, isIngestRequest, selfMonitoringOrigin } from "./self-monitoring";
import { SEED_SDK_OPTIONS } from "./self-monitoring-config";

/**
 * The server-side SDK, started by instrumentation.ts. It must never report on the ingest
 * path: a report about an ingested envelope is itself an envelope, and so on.
 */
export async function initServerSdk(): Promise<void> {
  const target = await findSelfMonitoringTarget();
  if (!target) {
    console.warn(
      "[self-monitoring] the faultline project has no enabled key; the server SDK is off",
    );
    return;
  }
  Sentry.init({
    dsn: target.dsn,
    tunnel: target.tunnel,
    ...SEED_SDK_OPTIONS,
    tracesSampleRate: env().FAULTLINE_SELF_TRACES_SAMPLE_RATE,
    transport: tunnelTransport(selfMonitoringOrigin),
    // No release health from the server: request sessions would count every ingest request,
    // and their aggregate is itself posted to /monitoring once a minute, a loop that never goes
    // quiet; one session for the whole life of a server process says nothing. (The browser
    // SDK's sessions still tell how the UI fares.)
    integrations: (defaults) => [
      ...defaults.filter((i) => i.name !== "ProcessSession" && i.name !== "Http"),
      // Like the Next.js SDK's own Http integration, Next.js and not this integration makes
      // the spans of incoming requests.
      Sentry.httpIntegration({
        disableIncomingRequestSpans: true,
        sessions: false,
        // Ingest requests never reach Next, so no span is made for them; this keeps it so if
        // incoming spans are ever turned on here.
        ignoreIncomingRequests: (urlPath) => isIngestRequest(urlPath),
      }),
    ],
    // Request bodies are envelopes on the ingest path and credentials elsewhere: never copy them.
    dataCollection: { httpBodies: [] },
  });
}

type NodeTransportOptions = Parameters<typeof Sentry.makeNodeTransport>[0];
type Transport = ReturnType<typeof Sentry.makeNodeTransport>;

/**
 * The Node transport needs an absolute URL, but this process's port is known only once
 * server.ts listens, after register() has run. So the relative tunnel is resolved against the
 * published origin at the first send; anything captured before that (a start-up error) has
 * nowhere to go yet and is dropped — it is printed to the console as well.
 */
function tunnelTransport(origin: () => string | undefined) {
  return (options: NodeTransportOptions): Transport => {
    let inner: Transport | undefined;
    return {
      send(envelope) {
        const base = origin();
        if (!base) return Promise.resolve({});
        inner ??= Sentry.makeNodeTransport({ ...options, url: new URL(options.url, base).href });
        return inner.send(envelope);
      },
      flush: (timeout) => inner?.flush(timeout) ?? Promise.resolve(true),
    };
  };
}
