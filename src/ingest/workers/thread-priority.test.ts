import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { processThreads, SCHED_IDLE } from "../../../tests/helpers/threads";
import { createAtNormalPriority, currentThreadId, setThreadPriority } from "./thread-priority";

const SCHED_OTHER = 0;

const policies = () => new Map(processThreads(process.pid).map((t) => [t.tid, t.policy]));
const policyOf = (tid: number) => policies().get(tid);
/** The threads `create` started, and their policies just after. */
function startedBy(create: () => Worker): { thread: Worker; policies: number[] } {
  const before = policies();
  const thread = create();
  const started = [...policies()].filter(([tid]) => !before.has(tid));
  return { thread, policies: started.map(([, policy]) => policy) };
}
const idleThread = () => new Worker("setTimeout(() => {}, 2000)", { eval: true });

describe.runIf(process.platform === "linux")("createAtNormalPriority", () => {
  const threads: Worker[] = [];
  afterEach(async () => {
    setThreadPriority(currentThreadId() as number, "normal");
    await Promise.all(threads.splice(0).map((t) => t.terminate()));
  });

  it("starts a thread at normal priority from an idle caller, which stays idle", () => {
    const self = currentThreadId() as number;
    setThreadPriority(self, "idle");
    expect(policyOf(self)).toBe(SCHED_IDLE);

    // Created directly, a thread inherits its creator's idle policy.
    const inherited = startedBy(idleThread);
    threads.push(inherited.thread);
    expect(inherited.policies).toContain(SCHED_IDLE);

    const raised = startedBy(() => createAtNormalPriority(idleThread));
    threads.push(raised.thread);
    expect(raised.policies.length).toBeGreaterThan(0);
    expect(raised.policies.every((p) => p === SCHED_OTHER)).toBe(true);
    expect(policyOf(self)).toBe(SCHED_IDLE);
  });

  it("leaves a caller at normal priority as it is", () => {
    const self = currentThreadId() as number;
    const started = startedBy(() => createAtNormalPriority(idleThread));
    threads.push(started.thread);
    expect(started.policies.length).toBeGreaterThan(0);
    expect(started.policies.every((p) => p === SCHED_OTHER)).toBe(true);
    expect(policyOf(self)).toBe(SCHED_OTHER);
  });
});
