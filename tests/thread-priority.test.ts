import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer, waitFor } from "./helpers/server";
import { processThreads, SCHED_IDLE } from "./helpers/threads";

/**
 * Processing yields the CPU to accepting only where the process accepts: a worker-only
 * process has nothing to yield to, and at SCHED_IDLE its threads were left sharing one core.
 */
/** Threads of `pid` at SCHED_IDLE. */
function idleThreads(pid: number): number {
  return processThreads(pid).filter((t) => t.policy === SCHED_IDLE).length;
}

const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe.runIf(process.platform === "linux")("processing threads' CPU priority", () => {
  it("is idle where the process also accepts, normal in a worker-only process", async () => {
    const env = { FAULTLINE_PROCESSORS: "1" };
    const all = await startServer({ env });
    servers.push(all);
    const workerOnly = await startServer({ env: { ...env, FAULTLINE_ROLE: "worker" } });
    servers.push(workerOnly);
    const pid = (s: RunningServer) => s.process.pid as number;
    // The worker thread, its processor thread and its WAL checkpoint thread.
    await waitFor(() => idleThreads(pid(all)) === 3, 15_000, "three threads at SCHED_IDLE");
    // By now the worker-only process has started the same threads (it listens only after
    // its worker thread is ready, and the processor thread starts with it).
    await new Promise((r) => setTimeout(r, 1000));
    expect(fs.readdirSync(`/proc/${pid(workerOnly)}/task`).length).toBeGreaterThan(8);
    expect(idleThreads(pid(workerOnly))).toBe(0);
  });
});
