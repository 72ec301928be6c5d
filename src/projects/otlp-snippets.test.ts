import { describe, expect, it } from "vitest";
import { otlpSnippets, otlpTarget } from "./otlp-snippets";

describe("OpenTelemetry setup snippets", () => {
  it("derive Sentry's OTLP endpoint and the key from the DSN", () => {
    expect(otlpTarget("http://0123456789abcdef0123456789abcdef@faultline.example:8080/7")).toEqual({
      endpoint: "http://faultline.example:8080/api/7/integration/otlp",
      publicKey: "0123456789abcdef0123456789abcdef",
    });
    // Behind a path prefix, as a DSN can be.
    expect(otlpTarget("https://k@example.com/monitor/12")?.endpoint).toBe(
      "https://example.com/monitor/api/12/integration/otlp",
    );
    expect(otlpTarget("not a dsn")).toBeNull();
    expect(otlpTarget("http://example.com/7")).toBeNull();
    expect(otlpTarget("http://k@example.com/x")).toBeNull();
  });

  it("fill the endpoint and key into every snippet", () => {
    const target = otlpTarget("http://0123456789abcdef0123456789abcdef@127.0.0.1:3000/7");
    if (!target) throw new Error("no target");
    const snippets = otlpSnippets(target);
    expect(snippets.map((s) => s.id)).toEqual(["env", "node", "python", "collector"]);
    for (const s of snippets) {
      for (const f of s.files) {
        expect(f.code).toContain('"http://127.0.0.1:3000/api/7/integration/otlp"');
        expect(f.code).toContain("sentry_key=0123456789abcdef0123456789abcdef");
      }
    }
    expect(snippets[0]?.files[0]?.code).toContain(
      'OTEL_EXPORTER_OTLP_HEADERS="x-sentry-auth=sentry%20sentry_key=0123456789abcdef0123456789abcdef"',
    );
  });
});
