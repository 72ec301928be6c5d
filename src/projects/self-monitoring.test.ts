import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { exemptIngestFromSelfMonitoring, isIngestRequest, loopbackOrigin } from "./self-monitoring";

const SEEN = Symbol.for("sentry_http_server_instrumented");

/** A server whose handler reports what it can see of a request. */
async function withServer(
  inspect: (req: http.IncomingMessage, res: http.ServerResponse) => unknown,
  paths: string[],
): Promise<unknown[]> {
  const server = http.createServer((req, res) => res.end(JSON.stringify(inspect(req, res))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const answers: unknown[] = [];
    for (const p of paths) answers.push(await (await fetch(`http://127.0.0.1:${port}${p}`)).json());
    return answers;
  } finally {
    server.close();
  }
}

let undo: (() => void) | undefined;
afterEach(() => undo?.());

describe("self-monitoring stays off the ingest path", () => {
  it("knows the ingest routes that server.ts serves before Next", () => {
    expect(isIngestRequest("/api/3/envelope/?sentry_key=x")).toBe(true);
    expect(isIngestRequest("/api/3/store/")).toBe(true);
    expect(isIngestRequest("/monitoring?o=1&p=2")).toBe(true);
    expect(isIngestRequest("/api/0/projects/default/faultline/issues/")).toBe(false);
    expect(isIngestRequest("/e2e/server-error")).toBe(false);
  });

  it("marks exactly the ingest requests, before the server handles them", async () => {
    undo = exemptIngestFromSelfMonitoring();
    const marks = await withServer(
      (req) => (req as unknown as Record<symbol, unknown>)[SEEN] === true,
      ["/api/1/envelope/", "/monitoring?o=1&p=2", "/api/1/store/", "/", "/api/0/issues/1/"],
    );
    expect(marks).toEqual([true, true, true, false, false]);
  });

  it("the installed SDK leaves a marked request alone", async () => {
    // The request handling of @sentry/nextjs's own copy of @sentry/core, with a client set: an
    // instrumented request gets a `close` listener on its response, a marked one does not.
    const sentry = createRequire(createRequire(import.meta.url).resolve("@sentry/nextjs"));
    const core = sentry("@sentry/core");
    const { getHttpServerSubscriptions } = sentry("@sentry/core/server");
    const Client = core.Client as new (options: object) => object;
    class TestClient extends Client {
      eventFromException = async () => ({});
      eventFromMessage = async () => ({});
    }
    const transport = () => ({ send: async () => ({}), flush: async () => true });
    const client = new TestClient({ integrations: [], transport, stackParser: () => [] });
    core.setCurrentClient(client);
    const diagnostics = await import("node:diagnostics_channel");
    const subscriptions = Object.entries(
      getHttpServerSubscriptions({ sessions: false, spans: false }) as Record<
        string,
        (message: unknown) => void
      >,
    );
    for (const [channel, fn] of subscriptions) diagnostics.subscribe(channel, fn);
    const exempt = exemptIngestFromSelfMonitoring();
    undo = () => {
      exempt();
      for (const [channel, fn] of subscriptions) diagnostics.unsubscribe(channel, fn);
      core.getCurrentScope().setClient(undefined);
    };
    const closeListeners = await withServer(
      (_req, res) => res.listenerCount("close"),
      ["/", "/api/1/envelope/"],
    );
    expect(closeListeners).toEqual([1, 0]);
  });

  it("posts to this process over loopback", () => {
    expect(loopbackOrigin("0.0.0.0", 3000)).toBe("http://127.0.0.1:3000");
    expect(loopbackOrigin("::", 3000)).toBe("http://[::1]:3000");
    expect(loopbackOrigin("10.0.0.5", 80)).toBe("http://10.0.0.5:80");
    expect(loopbackOrigin("fd00::1", 80)).toBe("http://[fd00::1]:80");
  });
});
