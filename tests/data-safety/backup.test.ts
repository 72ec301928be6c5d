import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { API_TOKEN, ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * Backup and restore (issue 24): `npm run backup` while ~1,000 events/s are being ingested,
 * `npm run restore` into an empty directory; the restored Faultline starts, and every event
 * acknowledged before the backup began is there (processed then, or queued and processed
 * after the restore) and served by its API. A backup into a folder that is not empty and a
 * restore over a live data directory are refused with a message, changing nothing.
 */
const servers: RunningServer[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-backup-test-"));
  dirs.push(dir);
  return dir;
}

/** `node dist/<script>.js <folder>`, as `npm run backup|restore -- <folder>` runs it. */
async function run(script: "backup" | "restore", folder: string, dataDir: string) {
  const child = spawn(process.execPath, [path.join(ROOT, `dist/${script}.js`), folder], {
    cwd: ROOT,
    env: { ...process.env, FAULTLINE_DATA_DIR: dataDir, DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, out };
}

/** Sends error envelopes at about `perSecond` until stopped; each acknowledgement is timed. */
function ingestLoad(server: RunningServer, perSecond: number) {
  const dsn = new URL(server.dsn);
  const url = `${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`;
  const base = realNodeErrorEvent();
  const acked: { id: string; at: number }[] = [];
  let failed = 0;
  let inFlight = 0;
  let stopped = false;
  const sendOne = async () => {
    inFlight++;
    const event = variant(base, { value: `load event ${acked.length}` });
    try {
      const res = await fetch(url, {
        method: "POST",
        body: new Uint8Array(
          buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
        ),
      });
      await res.arrayBuffer();
      if (res.status === 200) acked.push({ id: event.event_id as string, at: Date.now() });
      else failed++;
    } catch {
      failed++;
    } finally {
      inFlight--;
    }
  };
  const started = Date.now();
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - started) / 1000) * perSecond);
    while (!stopped && sent < due && inFlight < 256) {
      sent++;
      void sendOne();
    }
  }, 5);
  return {
    acked,
    failed: () => failed,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await waitFor(() => inFlight === 0, 30_000, "requests in flight to finish");
    },
  };
}

it("backs up under load and restores into an empty directory: every acknowledged event is there", async () => {
  const server = await startServer();
  servers.push(server);
  // An attachment: its bytes are a file under the data directory, backed up with it.
  const attached = variant(realNodeErrorEvent(), { value: "with an attachment" });
  const dsn = new URL(server.dsn);
  const withFile = await fetch(
    `${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`,
    {
      method: "POST",
      body: new Uint8Array(
        buildEnvelope(
          [
            { type: "event", payload: attached },
            { type: "attachment", payload: "backed up bytes", headers: { filename: "note.txt" } },
          ],
          { event_id: attached.event_id },
        ),
      ),
    },
  );
  expect(withFile.status).toBe(200);
  const load = ingestLoad(server, 1000);
  // A count, not a time: on a machine shared with other test runs, 3 s of 1,000 events a
  // second offered once came to 1,021 acknowledged.
  await waitFor(() => load.acked.length >= 1500, 60_000, "1,500 events acknowledged");

  const folder = path.join(tmp(), "backup");
  const backupStarted = Date.now();
  const backup = await run("backup", folder, server.dataDir);
  const backupEnded = Date.now();
  expect(backup.code, backup.out).toBe(0);
  await new Promise((r) => setTimeout(r, 500));
  await load.stop();
  const before = load.acked.filter((a) => a.at < backupStarted).map((a) => a.id);
  // The load was real and went on while the backup ran: events were acknowledged during it.
  expect(load.failed()).toBe(0);
  expect(before.length).toBeGreaterThanOrEqual(1500);
  const during = load.acked.filter((a) => a.at >= backupStarted && a.at < backupEnded);
  expect(during.length).toBeGreaterThan(0);

  const manifest = JSON.parse(fs.readFileSync(path.join(folder, "manifest.json"), "utf8"));
  expect(manifest.files.map((f: { path: string }) => f.path)).toContain("faultline.db");

  // Refusals that change nothing: a folder that is not empty, a live data directory.
  const again = await run("backup", folder, server.dataDir);
  expect(again.code).toBe(1);
  expect(again.out).toMatch(/backup folder .* exists and is not empty/);
  // The running server retires and opens queue segments on its own while this runs (CI
  // saw faultline.queue.1.log go between the two reads): compare everything else.
  const ownFiles = () =>
    fs
      .readdirSync(server.dataDir)
      .filter((f) => !/^faultline\.queue\.\d+\.log$/.test(f))
      .sort();
  const liveBefore = ownFiles();
  const over = await run("restore", folder, server.dataDir);
  expect(over.code).toBe(1);
  expect(over.out).toMatch(/data directory .* is not empty \(it holds faultline\.db/);
  expect(ownFiles()).toEqual(liveBefore);
  await server.stop();

  const restoredDir = path.join(tmp(), "restored");
  const restored = await run("restore", folder, restoredDir);
  expect(restored.code, restored.out).toBe(0);

  const second = await startServer({ dataDir: restoredDir });
  servers.push(second);
  const db = openDb(`file:${path.join(restoredDir, "faultline.db")}`, { poolSize: 1 });
  try {
    const missing = async () => {
      const found = new Set<string>();
      for (let i = 0; i < before.length; i += 500) {
        const rows = await db.kysely
          .selectFrom("events")
          .select("event_id")
          .where("event_id", "in", before.slice(i, i + 500))
          .execute();
        for (const r of rows) found.add(r.event_id);
      }
      return before.filter((id) => !found.has(id));
    };
    await waitFor(
      async () => (await missing()).length === 0,
      60_000,
      "every acknowledged event in the restored instance",
    );
    const row = await db.kysely
      .selectFrom("events")
      .select("issue_id")
      .where("event_id", "=", before[0] as string)
      .executeTakeFirstOrThrow();
    const served = await second.api<{ eventID: string }[]>(
      `/api/0/issues/${row.issue_id}/events/`,
      API_TOKEN,
    );
    expect(served.status).toBe(200);
    expect(served.body.length).toBeGreaterThan(0);
    const file = await db.kysely.selectFrom("attachments").select("path").executeTakeFirstOrThrow();
    expect(fs.readFileSync(path.join(restoredDir, file.path as string), "utf8")).toBe(
      "backed up bytes",
    );
  } finally {
    await db.close();
  }
}, 180_000);
