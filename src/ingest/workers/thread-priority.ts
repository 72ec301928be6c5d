import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

/**
 * Lowers the CPU priority of the calling thread, so that when the cores are busy, answering
 * SDKs (which a client waits on) goes first and the durable queue absorbs the difference.
 *
 * On Linux a thread is a task with its own scheduling policy, reachable through its thread
 * id (/proc/thread-self). SCHED_IDLE (util-linux `chrt`, present on every Debian) is the
 * policy made for this: such a thread runs on whatever CPU time is left, and yields the core
 * at once when the accepting thread wakes up. Nice 19 is the fallback: it still let
 * processing delay accepting (bench:ingest errors on 2 cores, two runs each: nice 19
 * accepted 15.2–15.9k req/s with p99 at 5,000/s of 12–27 ms; SCHED_IDLE 16.9–18.8k and
 * 7.5–15 ms). Elsewhere this does nothing.
 *
 * Only where this process also accepts (role all). A worker-only process has nothing to
 * yield to, and at idle priority its threads were left sharing one core while the other sat
 * idle: draining 100k queued errors with one processor thread ran at ~2,500 events/s at
 * SCHED_IDLE and 4,160 at normal priority.
 */
export function lowerThreadPriority(role: string): void {
  if (role === "worker") return;
  const tid = currentThreadId();
  if (tid !== undefined) setThreadPriority(tid, "idle");
}

/**
 * Creates a thread with the calling thread at normal priority for the moment it takes. A
 * thread starts with its creator's policy, and a processor thread started by an idle worker
 * spent its start (loading the bundle, ~1 s of CPU) at SCHED_IDLE: beside busy processes it
 * never got that far, so it never said its thread id, and the pool could not raise it when
 * the worker was starved (tests/thread-priority.test.ts timed out with two more busy
 * processes). Started at normal priority, the new thread lowers itself once it is loaded.
 */
export function createAtNormalPriority<T>(create: () => T): T {
  const tid = currentThreadId();
  const idle = tid !== undefined && ownPolicy() === SCHED_IDLE;
  if (idle) setThreadPriority(tid, "normal");
  try {
    return create();
  } finally {
    if (idle) setThreadPriority(tid, "idle");
  }
}

/** Linux's scheduling policy number for SCHED_IDLE (sched(7)). */
export const SCHED_IDLE = 5;

/** The fields of a proc(5) `stat` line after the command name (which may hold spaces). */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** The calling thread's scheduling policy (field 41 of proc(5)'s stat), or undefined. */
function ownPolicy(): number | undefined {
  try {
    return Number(statFields(fs.readFileSync("/proc/thread-self/stat", "utf8"))[38]);
  } catch {
    return undefined;
  }
}

/** This thread's Linux thread id, or undefined where there is none to find. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Puts a thread of this process at idle priority (see above) or back at normal priority.
 * Going back from nice 19 may not be permitted; the thread then stays where it is.
 */
export function setThreadPriority(tid: number, priority: "idle" | "normal"): void {
  const policy = priority === "idle" ? "--idle" : "--other";
  const chrt = spawnSync("chrt", [policy, "--pid", "0", String(tid)], {
    stdio: "ignore",
    timeout: 5000,
  });
  if (chrt.status === 0) return;
  try {
    os.setPriority(tid, priority === "idle" ? 19 : 0);
  } catch {
    // Not permitted here: processing simply shares the CPU evenly.
  }
}
