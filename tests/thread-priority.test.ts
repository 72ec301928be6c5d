import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Processing yields the CPU to accepting only where the process accepts: a worker-only
 * process has nothing to yield to, and at SCHED_IDLE its threads were left sharing one core.
 */
const SCHED_IDLE = 5;

/** Threads of `pid` at SCHED_IDLE (field 41 of /proc/<pid>/task/<tid>/stat is the policy). */
function idleThreads(pid: number): number {
  let idle = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[38]) === SCHED_IDLE) idle++;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return idle;
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
    // The worker thread and its processor thread.
    await waitFor(() => idleThreads(pid(all)) === 2, 15_000, "two threads at SCHED_IDLE");
    // By now the worker-only process has started the same threads (it listens only after
    // its worker thread is ready, and the processor thread starts with it).
    await new Promise((r) => setTimeout(r, 1000));
    expect(fs.readdirSync(`/proc/${pid(workerOnly)}/task`).length).toBeGreaterThan(8);
    expect(idleThreads(pid(workerOnly))).toBe(0);
  });
});
