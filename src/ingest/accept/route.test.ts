import { describe, expect, it } from "vitest";
import { ingestTarget, isIngestTarget, matchIngestRoute } from "./route";

/** What the server did before the fast path: parse a URL, then match its path. */
function viaUrl(target: string) {
  const url = new URL(target, "http://localhost");
  const route = matchIngestRoute(url.pathname, url.searchParams);
  return route && { route, query: [...url.searchParams] };
}

describe("ingestTarget", () => {
  it("routes a request target exactly as parsing it as a URL does", () => {
    const targets = [
      "/api/1/envelope/",
      "/api/1/envelope",
      "/api/12/store/?sentry_key=abc&sentry_version=7",
      "/api/1/envelope/?sentry_key=a%20b&x=1&x=2",
      "/monitoring?o=1&p=2&r=eu",
      "/monitoring/?o=1&p=2",
      "/monitoring",
      "/api/0/issues/",
      "/api/0/envelope/",
      "/api/x/envelope/",
      "/api/1/envelope/extra",
      "/api/1/./envelope/",
      "/api/2/../1/envelope/",
      "/api/%31/envelope/",
      "//api/1/envelope/",
      "/api/1/envelope/?sentry_key=k#fragment",
      "/issues?query=a",
      "/",
      "",
      "/api/1/integration/otlp/v1/traces",
      "/api/1/integration/otlp/v1/logs/",
      "/api/1/integration/otlp/v1/metrics",
      "/api/0/integration/otlp/v1/traces",
      "/v1/traces",
      "/v1/logs/?sentry_key=abc",
      "/v1/metrics",
      "/v1/traces/x",
      "/v1/./traces",
    ];
    for (const target of targets) {
      const fast = ingestTarget(target);
      expect(fast && { route: fast.route, query: [...fast.query] }, target).toEqual(viaUrl(target));
      expect(isIngestTarget(target), target).toBe(viaUrl(target) !== null);
    }
  });

  it("routes OTLP/HTTP: Sentry's project paths and an exporter's base URL", () => {
    expect(ingestTarget("/api/7/integration/otlp/v1/traces/")?.route).toEqual({
      kind: "otlp",
      signal: "traces",
      projectId: "7",
    });
    expect(ingestTarget("/api/7/integration/otlp/v1/logs")?.route).toEqual({
      kind: "otlp",
      signal: "logs",
      projectId: "7",
    });
    expect(ingestTarget("/v1/logs")?.route).toEqual({
      kind: "otlp",
      signal: "logs",
      projectId: null,
    });
    expect(ingestTarget("/v1/metrics")).toBeNull();
    expect(ingestTarget("/api/0/integration/otlp/v1/traces")).toBeNull();
  });
});
