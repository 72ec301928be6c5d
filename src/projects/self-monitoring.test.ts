import { describe, expect, it } from "vitest";
import { isIngestRequest, loopbackOrigin } from "./self-monitoring";

describe("self-monitoring stays off the ingest path", () => {
  it("knows the ingest routes that server.ts serves before Next", () => {
    expect(isIngestRequest("/api/3/envelope/?sentry_key=x")).toBe(true);
    expect(isIngestRequest("/api/3/store/")).toBe(true);
    expect(isIngestRequest("/monitoring?o=1&p=2")).toBe(true);
    expect(isIngestRequest("/api/0/projects/default/faultline/issues/")).toBe(false);
    expect(isIngestRequest("/e2e/server-error")).toBe(false);
  });

  it("posts to this process over loopback", () => {
    expect(loopbackOrigin("0.0.0.0", 3000)).toBe("http://127.0.0.1:3000");
    expect(loopbackOrigin("::", 3000)).toBe("http://[::1]:3000");
    expect(loopbackOrigin("10.0.0.5", 80)).toBe("http://10.0.0.5:80");
    expect(loopbackOrigin("fd00::1", 80)).toBe("http://[fd00::1]:80");
  });
});
