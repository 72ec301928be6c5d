import os from "node:os";
import { describe, expect, it } from "vitest";
import { type Backlog, BackpressureGuard } from "./backpressure";

describe("BackpressureGuard", () => {
  it("reports how full the queue is, by the fuller of its two bounds", async () => {
    let backlog: Backlog = { envelopes: 10, bytes: 100 };
    const guard = new BackpressureGuard(
      { maxEnvelopes: 100, maxBytes: 1000, minFreeDiskBytes: 0, dataDir: os.tmpdir() },
      async () => backlog,
    );
    expect(guard.backlogShare()).toBe(0);
    await guard.check();
    expect(guard.backlogShare()).toBe(0.1);
    expect(guard.current()).toBeNull();
    backlog = { envelopes: 10, bytes: 600 };
    await guard.check();
    expect(guard.backlogShare()).toBe(0.6);
    backlog = { envelopes: 100, bytes: 0 };
    await guard.check();
    expect(guard.backlogShare()).toBe(1);
    expect(guard.current()?.kind).toBe("queue_full");
  });
});
