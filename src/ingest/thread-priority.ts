import fs from "node:fs";
import os from "node:os";

/**
 * Lowers the CPU priority of the calling thread. On Linux a thread is a task with its own
 * nice value, reachable through its thread id (/proc/thread-self). Processing runs niced so
 * that, when the cores are busy, accepting (which a client waits on) goes first and the
 * queue absorbs the difference. Elsewhere this does nothing.
 */
export function lowerThreadPriority(nice = 10): boolean {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    os.setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
