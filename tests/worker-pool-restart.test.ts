import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { WorkerPool } from "../src/ingest/workers/worker-pool";
import { waitFor } from "./helpers/server";

/**
 * A worker thread that dies is replaced, later and later while replacements keep dying, and
 * stop() still ends the pool. The thread here is a stand-in that speaks the pool's protocol
 * (ready, stop, stopped) and throws an uncaught error in its first two lives.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-worker-pool-"));
const starts = path.join(dir, "starts");
const ENTRY = `
import fs from "node:fs";
import { parentPort } from "node:worker_threads";
fs.appendFileSync(${JSON.stringify(starts)}, \`\${Date.now()}\\n\`);
const life = fs.readFileSync(${JSON.stringify(starts)}, "utf8").trim().split("\\n").length;
parentPort.on("message", (m) => m === "stop" && parentPort.postMessage("stopped"));
parentPort.postMessage({ ready: true });
if (life <= 2) setTimeout(() => { throw new Error("a bug in life " + life); }, 20);
`;

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

function startTimes(): number[] {
  return fs.existsSync(starts)
    ? fs.readFileSync(starts, "utf8").trim().split("\n").map(Number)
    : [];
}

it("replaces a worker thread that died, backing off, and still stops", async () => {
  const logged: string[] = [];
  vi.spyOn(console, "error").mockImplementation((...args) => void logged.push(String(args[0])));
  const entry = path.join(dir, "entry.mjs");
  fs.writeFileSync(entry, ENTRY);
  const pool = new WorkerPool(1, { entry: new URL(`file://${entry}`), firstRestartDelayMs: 100 });
  await pool.start();
  await waitFor(() => startTimes().length === 3, 10_000, "the third thread");
  const [first, second, third] = startTimes() as [number, number, number];
  // 100 ms after the first death, 200 ms after the second.
  expect(second - first).toBeGreaterThanOrEqual(100);
  expect(third - second).toBeGreaterThanOrEqual(200);
  expect(logged.filter((l) => l.includes("exited with 1; replacing it"))).toHaveLength(2);
  await new Promise((r) => setTimeout(r, 300));
  expect(startTimes()).toHaveLength(3);
  await pool.stop();
  await new Promise((r) => setTimeout(r, 300));
  expect(startTimes()).toHaveLength(3);
});
