import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { monitorCheckInsResponse, orgMonitorsResponse } from "../src/monitors/api";
import { detectMissedCheckIns } from "../src/monitors/missed";
import { detectTimedOutCheckIns } from "../src/monitors/timeouts";
import { testDialects } from "./helpers/databases";
import { buildEnvelope } from "./helpers/envelopes";
import { openPipeline, type Pipeline } from "./helpers/pipeline";

/**
 * Cron monitors through queue → process → store on each database: check-ins in the shape
 * @sentry/node's captureCheckIn/withMonitor send, then the missed and timed-out check-in
 * detectors driven with an injected clock (and raced, on PostgreSQL, from several
 * connections as several worker processes would).
 */
const dialects = await testDialects();
const MINUTE = 60_000;

describe.each(dialects)("cron monitors on $name", ({ create }) => {
  let p: Pipeline;
  let db: Db;
  beforeAll(async () => {
    p = await openPipeline(create);
    db = p.db;
  });
  afterAll(async () => {
    await p?.close();
  });

  const checkIn = (payload: Record<string, unknown>) =>
    buildEnvelope([{ type: "check_in", payload }], { sent_at: new Date().toISOString() });

  it("upserts monitors, finishes in-progress check-ins and detects missed ones exactly once", async () => {
    const t0 = Math.floor(Date.now() / MINUTE) * MINUTE + 5_000;
    const config = {
      schedule: { type: "crontab", value: "*/5 * * * *" },
      checkin_margin: 2,
      max_runtime: 10,
      timezone: "UTC",
    };
    // Start and finish of one job in one batch, then a second job finished in a later batch.
    await p.send(
      checkIn({
        check_in_id: "a".repeat(32),
        monitor_slug: "Nightly Report",
        status: "in_progress",
        monitor_config: config,
        environment: "production",
      }),
      t0,
    );
    await p.send(
      checkIn({
        check_in_id: "a".repeat(32),
        monitor_slug: "Nightly Report",
        status: "ok",
        duration: 1.5,
      }),
      t0 + 1500,
    );
    await p.send(
      checkIn({
        check_in_id: "b".repeat(32),
        monitor_slug: "nightly-report",
        status: "in_progress",
      }),
      t0 + 2000,
    );
    expect(await p.worker.drain()).toBe(3);
    await p.send(
      checkIn({ check_in_id: "b".repeat(32), monitor_slug: "nightly-report", status: "error" }),
      t0 + 4000,
    );
    await p.send(
      checkIn({ check_in_id: "a".repeat(32), monitor_slug: "nightly-report", status: "error" }),
      t0 + 5000,
    );
    expect(await p.worker.drain()).toBe(2);

    const [monitor] = await orgMonitorsResponse(db, "default");
    expect(monitor).toMatchObject({
      slug: "nightly-report",
      config: {
        schedule_type: "crontab",
        schedule: "*/5 * * * *",
        checkin_margin: 2,
        max_runtime: 10,
      },
      environments: [{ status: "error" }],
    });
    const expected = Date.parse(String(monitor?.nextCheckIn));
    expect(expected).toBe(Math.floor(t0 / (5 * MINUTE)) * 5 * MINUTE + 5 * MINUTE);

    let rows = await monitorCheckInsResponse(db, "default", "nightly-report");
    const byId = new Map(rows.map((r) => [r.id, r]));
    // The finished check-in kept its status: a late "error" for it changed nothing.
    expect(byId.get("a".repeat(32))).toMatchObject({
      status: "ok",
      duration: 1500,
      environment: "production",
    });
    expect(byId.get("b".repeat(32))).toMatchObject({ status: "error", duration: 2000 });

    // Before the margin has passed nothing is missed; after it, exactly one miss, however often
    // (and however many processes at once) the detector runs.
    expect(await detectMissedCheckIns(db, expected + 2 * MINUTE - 1)).toBe(0);
    const later = expected + 2 * MINUTE + 1;
    // PostgreSQL: several connections, as several worker processes would race. SQLite has one
    // worker process, and two connections in one thread would block each other synchronously.
    const second = p.database.dialect === "postgres" ? await p.database.open() : db;
    try {
      const runs = await Promise.all([
        detectMissedCheckIns(db, later),
        detectMissedCheckIns(second, later),
        detectMissedCheckIns(db, later),
      ]);
      expect(runs.reduce((a, b) => a + b, 0)).toBe(1);
    } finally {
      if (second !== db) await second.close();
    }
    expect(await detectMissedCheckIns(db, later)).toBe(0);
    rows = await monitorCheckInsResponse(db, "default", "nightly-report");
    const missed = rows.filter((r) => r.status === "missed");
    expect(missed).toHaveLength(1);
    expect(missed[0]?.expectedTime).toBe(new Date(expected).toISOString());
    const [after] = await orgMonitorsResponse(db, "default");
    expect(after?.environments[0]?.status).toBe("missed_checkin");
    expect(Date.parse(String(after?.nextCheckIn))).toBe(expected + 5 * MINUTE);
    await expect(monitorCheckInsResponse(db, "default", "nope")).rejects.toThrow(/not found/);
    expect(await p.quantity("monitor", "accepted", "")).toBe(5);
  });

  it("expects the next check-in when a job's end is processed before its start", async () => {
    // withMonitor sends the schedule only with "in_progress"; under load the "ok" sent 300 ms
    // later can reach the worker first (seen once in CI on PostgreSQL).
    const t = Math.floor(Date.now() / MINUTE) * MINUTE + 1_000;
    const id = "d".repeat(32);
    await p.send(
      checkIn({ check_in_id: id, monitor_slug: "out-of-order", status: "ok", duration: 0.3 }),
      t + 300,
    );
    expect(await p.worker.drain()).toBe(1);
    await p.send(
      checkIn({
        check_in_id: id,
        monitor_slug: "out-of-order",
        status: "in_progress",
        monitor_config: { schedule: { type: "crontab", value: "*/10 * * * *" } },
      }),
      t,
    );
    expect(await p.worker.drain()).toBe(1);
    const monitor = (await orgMonitorsResponse(db, "default")).find(
      (m) => m.slug === "out-of-order",
    );
    expect(monitor?.config).toMatchObject({ schedule_type: "crontab" });
    expect(monitor?.environments[0]?.status).toBe("ok");
    expect(Date.parse(String(monitor?.nextCheckIn))).toBe(
      Math.floor((t + 300) / (10 * MINUTE)) * 10 * MINUTE + 10 * MINUTE,
    );
    const [row] = await monitorCheckInsResponse(db, "default", "out-of-order");
    expect(row).toMatchObject({ id, status: "ok", duration: 300 });
  });

  it("gives up on a check-in that runs past its monitor's max_runtime", async () => {
    const t = Date.now();
    const id = "c".repeat(32);
    const config = { schedule: { type: "interval", value: 1, unit: "day" }, max_runtime: 10 };
    await p.send(
      checkIn({
        check_in_id: id,
        monitor_slug: "long-job",
        status: "in_progress",
        monitor_config: config,
      }),
      t,
    );
    expect(await p.worker.drain()).toBe(1);
    expect(await detectTimedOutCheckIns(db, t + 10 * MINUTE - 1)).toBe(0);
    expect(await detectTimedOutCheckIns(db, t + 10 * MINUTE)).toBe(1);
    expect(await detectTimedOutCheckIns(db, t + 11 * MINUTE)).toBe(0);
    // The job's own "ok", arriving after Faultline gave up on it, changes nothing.
    await p.send(
      checkIn({ check_in_id: id, monitor_slug: "long-job", status: "ok" }),
      t + 12 * MINUTE,
    );
    expect(await p.worker.drain()).toBe(1);
    const [row] = await monitorCheckInsResponse(db, "default", "long-job");
    expect(row).toMatchObject({ id, status: "error", duration: 10 * MINUTE });
    const monitor = (await orgMonitorsResponse(db, "default")).find((m) => m.slug === "long-job");
    expect(monitor?.environments[0]?.status).toBe("error");
  });
});
