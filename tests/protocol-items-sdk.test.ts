import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { detectMissedCheckIns } from "../src/monitors/missed";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { API_TOKEN, ROOT, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * End to end with the real @sentry/node SDK: release health from three runs of an app
 * (healthy, handled errors, crash), cron monitors through `withMonitor` and `captureCheckIn`
 * (then a missed check-in, with the detector's clock moved past the margin), feedback linked
 * to an error, and an attachment read back byte for byte. Stats must agree with what the
 * SDK says it sent. On SQLite and on PostgreSQL.
 */
const dialects = await testDialects();

interface Sent {
  type: string;
  quantity: number;
}

describe.each(dialects)("@sentry/node protocol items → Faultline on $name", ({ create }) => {
  let database: TestDatabase;
  let server: RunningServer;
  let db: Db;
  let tmp: string;
  let attachment: Buffer;
  let ids: { error: string; feedback: string };
  const log = () => path.join(tmp, "envelopes.jsonl");

  const runClient = (mode: string) =>
    spawnSync(process.execPath, [path.join(ROOT, "tests/clients/node-protocol-items.mjs"), mode], {
      cwd: ROOT,
      env: {
        ...process.env,
        SENTRY_DSN: server.dsn,
        ENVELOPE_LOG: log(),
        ATTACHMENT_FILE: path.join(tmp, "report.bin"),
      },
      encoding: "utf8",
      timeout: 30_000,
    });

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-items-"));
    // Every byte value, and large enough that the SDK gzips the envelope.
    attachment = Buffer.concat([
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      crypto.randomBytes(100_000),
    ]);
    fs.writeFileSync(path.join(tmp, "report.bin"), attachment);
    database = await create();
    // Through a processor thread (FAULTLINE_PROCESSORS, off by default): every item type
    // must cross that thread boundary intact too.
    server = await startServer({
      env: { DATABASE_URL: database.url, FAULTLINE_PROCESSORS: "1" },
    });
    expect(runClient("healthy").status).toBe(0);
    const errors = runClient("errors");
    expect(errors.status, errors.stderr).toBe(0);
    ids = JSON.parse(errors.stdout.trim().split("\n").pop() as string);
    const crash = runClient("crash");
    expect(crash.status).not.toBe(0);
    expect(crash.stderr).toContain("unrecoverable state");
    db = await database.open();
  });
  afterAll(async () => {
    await db?.close();
    await server?.stop();
    await database?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("reports release health: three sessions, one crashed, one errored", async () => {
    interface Release {
      version: string;
      healthData: Record<string, number | boolean | null>;
    }
    const release = await waitFor(
      async () => {
        const res = await server.api<Release>("/api/0/organizations/default/releases/shop@3.0.0/");
        return res.status === 200 && res.body.healthData.sessionsCrashed === 1
          ? res.body
          : undefined;
      },
      20_000,
      "the crashed session",
    );
    expect(release.version).toBe("shop@3.0.0");
    expect(release.healthData).toMatchObject({
      totalSessions: 3,
      sessionsCrashed: 1,
      sessionsErrored: 1,
      totalUsers: 3,
    });
    expect(release.healthData.crashFreeSessions).toBeCloseTo(200 / 3, 6);
    expect(release.healthData.crashFreeUsers).toBeCloseTo(200 / 3, 6);
    const missing = await server.api("/api/0/organizations/default/releases/shop@9.9.9/");
    expect(missing.status).toBe(404);
    expect((await server.api("/api/0/organizations/nope/releases/shop@3.0.0/")).status).toBe(404);
  });

  it("stores the attachment byte for byte, linked to the error", async () => {
    interface Att {
      id: string;
      name: string;
      size: number;
      mimetype: string;
    }
    const base = `/api/0/projects/default/default/events/${ids.error}/attachments/`;
    const list = await waitFor(
      async () => {
        const res = await server.api<Att[]>(base);
        return res.body.length === 2 ? res.body : undefined;
      },
      20_000,
      "two attachments",
    );
    const report = list.find((a) => a.name === "report.bin");
    expect(report?.size).toBe(attachment.length);
    const res = await fetch(`${server.url}${base}${report?.id}/?download=1`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(Buffer.from(await res.arrayBuffer()).equals(attachment)).toBe(true);
    const notes = list.find((a) => a.name === "notes.txt");
    const text = await fetch(`${server.url}${base}${notes?.id}/?download=1`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(await text.text()).toBe("line one\nline two\n");
    // Without a token, or for an attachment that does not exist: refused, not found.
    expect((await fetch(`${server.url}${base}${report?.id}/?download=1`)).status).toBe(401);
    expect((await server.api(`${base}999999/`)).status).toBe(404);
    expect(
      (await server.api("/api/0/projects/default/default/events/not-an-id/attachments/")).status,
    ).toBe(404);
  });

  it("links the feedback to the error and its issue", async () => {
    interface Feedback {
      eventID: string;
      feedbackID: string;
      comments: string;
      name: string;
      email: string;
      issue: { id: string } | null;
    }
    const [feedback] = await waitFor(
      async () => {
        const res = await server.api<Feedback[]>("/api/0/projects/default/default/user-feedback/");
        return res.body.length === 1 && res.body[0]?.issue ? res.body : undefined;
      },
      20_000,
      "feedback linked to its issue",
    );
    expect(feedback).toMatchObject({
      eventID: ids.error,
      feedbackID: ids.feedback,
      name: "Ada Lovelace",
      email: "ada@example.com",
      comments: "The report button gives me an error <script>alert(1)</script>",
    });
    const issue = await server.api<{ title: string }>(`/api/0/issues/${feedback?.issue?.id}/`);
    expect(issue.body.title).toBe("Error: report generation failed");
  });

  it("shows monitors and check-ins, then records a missed check-in once", async () => {
    interface Monitor {
      slug: string;
      config: Record<string, unknown>;
      nextCheckIn: string | null;
      environments: { status: string }[];
    }
    interface CheckIn {
      id: string;
      status: string;
      duration: number | null;
      expectedTime: string | null;
    }
    const monitors = await waitFor(
      async () => {
        const res = await server.api<Monitor[]>("/api/0/organizations/default/monitors/");
        const sync = res.body.find((m) => m.slug === "hourly-sync");
        return sync?.environments[0]?.status === "error" ? res.body : undefined;
      },
      20_000,
      "both monitors",
    );
    const nightly = monitors.find((m) => m.slug === "nightly-report");
    expect(nightly?.config).toMatchObject({
      schedule_type: "crontab",
      schedule: "*/10 * * * *",
      checkin_margin: 2,
      max_runtime: 5,
      timezone: "Europe/Berlin",
    });
    expect(nightly?.environments[0]?.status).toBe("ok");
    const sync = monitors.find((m) => m.slug === "hourly-sync");
    expect(sync?.config).toMatchObject({ schedule_type: "interval", schedule: [1, "hour"] });

    const syncCheckIns = await server.api<CheckIn[]>(
      "/api/0/organizations/default/monitors/hourly-sync/checkins/",
    );
    expect(syncCheckIns.body).toHaveLength(1);
    expect(syncCheckIns.body[0]?.status).toBe("error");
    // The SDK sent no duration here, so it is the time between the two check-ins' arrival,
    // as in Sentry. The client waited 200 ms between them, but how far apart they arrive
    // depends on delivery (a CI run on a busy machine received them 12 ms apart), so the
    // check is against the stored arrival times rather than the client's wait.
    const syncRow = await db.kysely
      .selectFrom("check_ins")
      .select(["received_at", "updated_at"])
      .where("check_in_id", "=", syncCheckIns.body[0]?.id ?? "")
      .executeTakeFirstOrThrow();
    const arrivalGap = Number(syncRow.updated_at) - Number(syncRow.received_at);
    expect(syncCheckIns.body[0]?.duration).toBe(arrivalGap);
    const okRuns = await server.api<CheckIn[]>(
      "/api/0/organizations/default/monitors/nightly-report/checkins/",
    );
    expect(okRuns.body.map((c) => c.status)).toEqual(["ok"]);
    expect(okRuns.body[0]?.duration).toBeGreaterThanOrEqual(250);

    // The detector with its clock just past the next tick plus the 2-minute margin.
    const expected = Date.parse(String(nightly?.nextCheckIn));
    expect(expected % (10 * 60_000)).toBe(0);
    const clock = expected + 2 * 60_000 + 1;
    expect(await detectMissedCheckIns(db, clock)).toBe(1);
    expect(await detectMissedCheckIns(db, clock)).toBe(0);
    const after = await server.api<CheckIn[]>(
      "/api/0/organizations/default/monitors/nightly-report/checkins/",
    );
    const missed = after.body.filter((c) => c.status === "missed");
    expect(missed).toHaveLength(1);
    expect(missed[0]?.expectedTime).toBe(new Date(expected).toISOString());
    expect((await server.api("/api/0/organizations/default/monitors/nope/checkins/")).status).toBe(
      404,
    );
  });

  it("reports in stats_v2 exactly what the SDK sent", async () => {
    const sent = fs
      .readFileSync(log(), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Sent);
    const CATEGORY: Record<string, string> = {
      event: "error",
      session: "session",
      sessions: "session",
      check_in: "monitor",
      feedback: "feedback",
      attachment: "attachment",
    };
    const expected: Record<string, number> = {};
    for (const s of sent) {
      const category = CATEGORY[s.type];
      if (category) expected[category] = (expected[category] ?? 0) + s.quantity;
    }
    expect(Object.keys(expected).sort()).toEqual([
      "attachment",
      "error",
      "feedback",
      "monitor",
      "session",
    ]);
    interface Stats {
      intervals: string[];
      groups: { by: Record<string, string>; totals: Record<string, number> }[];
    }
    const url =
      "/api/0/organizations/default/stats_v2/?field=sum(quantity)&groupBy=category&groupBy=outcome&groupBy=reason&statsPeriod=24h";
    const accepted = (stats: Stats) => {
      const out: Record<string, number> = {};
      for (const g of stats.groups)
        if (g.by.outcome === "accepted" && g.by.category !== undefined && g.by.category in expected)
          out[g.by.category as string] = g.totals["sum(quantity)"] as number;
      return sortKeys(out);
    };
    const stats = await waitFor(
      async () => {
        const res = await server.api<Stats>(url);
        return JSON.stringify(accepted(res.body)) === JSON.stringify(sortKeys(expected))
          ? res.body
          : undefined;
      },
      20_000,
      "stats to match what was sent",
    ).catch(async (err) => {
      const res = await server.api<Stats>(url);
      throw new Error(
        `${err.message}: sent ${JSON.stringify(expected)}, stats ${JSON.stringify(accepted(res.body))}`,
      );
    });
    expect(stats.intervals.length).toBeGreaterThanOrEqual(24);
    expect(stats.groups.every((g) => g.by.reason !== undefined)).toBe(true);
    const bad = await server.api<{ detail: string }>(
      "/api/0/organizations/default/stats_v2/?field=sum(nonsense)",
    );
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/field/);
  });
});

function sortKeys(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}
