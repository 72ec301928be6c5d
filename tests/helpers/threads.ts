import fs from "node:fs";
import { SCHED_IDLE, statFields } from "../../src/ingest/workers/thread-priority";

export { SCHED_IDLE };

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICK_US = 1e6 / 100;

export interface ThreadStat {
  tid: number;
  /** Scheduling policy (field 41 of proc(5)'s stat). */
  policy: number;
  /** CPU time used so far, user + system (fields 14 and 15), in µs. */
  cpuUs: number;
}

/** The threads of a process, from /proc/<pid>/task/<tid>/stat; none where /proc is missing. */
export function processThreads(pid: number): ThreadStat[] {
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const threads: ThreadStat[] = [];
  for (const tid of tids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended meanwhile
    }
    // Fields after the command name: state (field 3) first.
    const f = statFields(stat);
    threads.push({
      tid: Number(tid),
      policy: Number(f[38]),
      cpuUs: (Number(f[11]) + Number(f[12])) * CLOCK_TICK_US,
    });
  }
  return threads;
}

/** The ids of a process's threads at SCHED_IDLE (its processing threads, in role all). */
export function idleThreadIds(pid: number): Set<number> {
  return new Set(
    processThreads(pid)
      .filter((t) => t.policy === SCHED_IDLE)
      .map((t) => t.tid),
  );
}
