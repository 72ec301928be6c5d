import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { backfillLogVolume } from "../src/db/migrations/018-crons-logs";
import * as migration023 from "../src/db/migrations/023-log-search";
import { logsResponse, logVolumeResponse, parseLogsQuery, resolveLogScope } from "../src/logs/api";
import { parseLogQuery, SEVERITIES } from "../src/logs/filters";
import { listLogs, logVolume, logVolumeWithin } from "../src/logs/queries";
import { LogTailHub } from "../src/logs/tail";
import { runRetention } from "../src/maintenance/retention";
import { testDialects } from "./helpers/databases";
import { buildEnvelope } from "./helpers/envelopes";
import { openPipeline, type Pipeline } from "./helpers/pipeline";
import { waitFor } from "./helpers/server";

/**
 * The log explorer's reads on each database: the volume histogram against buckets computed
 * here from the same logs, every filter (severity, text, key:value attributes, environment,
 * release, trace) against a reference filter, and the live tail's hub: a reading subscriber
 * gets new lines, one that never reads is dropped with its queue bounded, and subscribers
 * are limited.
 */
const dialects = await testDialects();
const HOUR = 3_600_000;

interface Sent {
  body: string;
  level: string;
  ms: number;
  trace_id: string;
  env: string;
  release: string;
  attributes: Record<string, string | number | boolean>;
}

/** A deterministic spread of logs over the last 23 hours. */
function makeLogs(now: number, n: number): Sent[] {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: n }, (_, i) => ({
    body: `${["checkout done", "Payment FAILED", "cache miss", "user 100% signed in"][i % 4]} #${i}`,
    level: SEVERITIES[Math.floor(rand() * 6)] as string,
    ms: Math.round(now - rand() * 23 * HOUR),
    trace_id: (i % 5).toString(16).repeat(32),
    env: i % 3 === 0 ? "staging" : "production",
    release: i % 2 === 0 ? "shop@1.0" : "shop@2.0",
    attributes: {
      "order.id": `o-${i % 7}`,
      attempts: i % 4,
      final: i % 2 === 0,
      // Strings that are hard on a search of the stored JSON text: escapes, non-ASCII, and
      // strings that read like a number or an object.
      note: i % 5 === 0 ? 'say "hi" \\ ünï' : "plain",
      zip: i % 3 === 0 ? "02139" : "10001",
      shape: i % 4 === 0 ? '{"a": 1}' : "[]",
    },
  }));
}

function envelope(logs: Sent[]) {
  return buildEnvelope([
    {
      type: "log",
      payload: {
        items: logs.map((l) => ({
          timestamp: l.ms / 1000,
          level: l.level,
          body: l.body,
          trace_id: l.trace_id,
          attributes: {
            "sentry.environment": { value: l.env, type: "string" },
            "sentry.release": { value: l.release, type: "string" },
            "order.id": { value: l.attributes["order.id"], type: "string" },
            attempts: { value: l.attributes.attempts, type: "integer" },
            final: { value: l.attributes.final, type: "boolean" },
            note: { value: l.attributes.note, type: "string" },
            zip: { value: l.attributes.zip, type: "string" },
            shape: { value: l.attributes.shape, type: "string" },
          },
        })),
      },
    },
  ]);
}

describe.each(dialects)("log explorer on $name", ({ create }) => {
  let p: Pipeline;
  let db: Db;
  const now = Date.now();
  const sent = makeLogs(now, 240);

  beforeAll(async () => {
    p = await openPipeline(create);
    db = p.db;
    for (let i = 0; i < sent.length; i += 60) await p.send(envelope(sent.slice(i, i + 60)), now);
    await p.worker.drain();
  });
  afterAll(async () => {
    await p?.close();
  });

  const all = async (params: string) =>
    (
      await logsResponse(
        db,
        "default",
        parseLogsQuery(new URLSearchParams(`per_page=1000&${params}`)),
      )
    ).data
      .map((l) => l.body)
      .sort();
  const expected = (keep: (l: Sent) => boolean) =>
    sent
      .filter(keep)
      .map((l) => l.body)
      .sort();

  it("buckets the volume per severity like a reference computed from the same logs", async () => {
    for (const [range, filter, keep] of [
      ["24h", "", () => true],
      [
        "24h",
        "severity=error&severity=fatal",
        (l: Sent) => l.level === "error" || l.level === "fatal",
      ],
      ["7d", "query=failed", (l: Sent) => l.body.includes("FAILED")],
      ["1h", "", () => true],
    ] as const) {
      const q = parseLogsQuery(new URLSearchParams(`range=${range}&${filter}`));
      const volume = await logVolumeResponse(db, "default", q, now);
      const step = volume.step_ms;
      const since = Date.parse(volume.since);
      const reference = new Map<string, number>();
      for (const l of sent.filter(keep)) {
        if (l.ms < since) continue;
        const key = `${Math.floor(l.ms / step) * step}|${l.level}`;
        reference.set(key, (reference.get(key) ?? 0) + 1);
      }
      const got = new Map(volume.data.map((b) => [`${b.start}|${b.severity}`, b.count]));
      expect(reference.size, `${range} ${filter}`).toBeGreaterThan(0);
      expect(got, `${range} ${filter}`).toEqual(reference);
      expect(volume.data.every((b) => b.start % step === 0)).toBe(true);
    }
  });

  it("counts a histogram no index answers newest first within its budget, and says from when", async () => {
    const scope = await resolveLogScope(db, "default", {});
    const step = 30 * 60_000;
    const since = Math.floor((now - 7 * 24 * HOUR) / step) * step;
    // `key:value` and a one-character term have no index: counted in slices.
    for (const where of [
      { ...scope.where, since, attributes: [{ key: "order.id", value: "o-3" }] },
      { ...scope.where, since, text: "#" },
    ]) {
      const exact = await logVolume(db, where, step);
      expect(exact.length).toBeGreaterThan(0);
      // Budget spent after the first slice: only the newest bucket is counted, and exactly.
      const partial = await logVolumeWithin(db, where, step, 0, now);
      expect(partial.countedFrom).toBe(Math.ceil(now / step) * step - step);
      const counted = partial.countedFrom as number;
      expect(partial.buckets).toEqual(exact.filter((b) => b.start >= counted));
      // No budget: the whole range, the same as counting at once.
      const whole = await logVolumeWithin(db, where, step, Number.POSITIVE_INFINITY, now);
      expect(whole).toEqual({ buckets: exact, countedFrom: null });
      // A generous budget covers this small range in slices that add up to the same.
      expect(await logVolumeWithin(db, where, step, 60_000, now)).toEqual(whole);
    }
    // What `log_volume` answers is never partial.
    const plain = await logVolumeWithin(db, { ...scope.where, since }, step, 0, now);
    expect(plain.countedFrom).toBeNull();
    // The API names the cut, and `count=all` lifts it.
    const q = (extra: string) =>
      parseLogsQuery(
        new URLSearchParams(`range=7d&query=${encodeURIComponent("order.id:o-3")}${extra}`),
      );
    const all = await logVolumeResponse(db, "default", q("&count=all"), now);
    expect(all.counted_from).toBeNull();
    expect(all.data.length).toBeGreaterThan(0);
    // What the explorer's chart does after a short count: ask for the buckets before
    // `counted_from` until none is left. The pieces add up to the whole count.
    let answer = await logVolumeResponse(db, "default", q(""), now, 0);
    expect(answer.counted_from).not.toBeNull();
    const pieces = [...answer.data];
    let requests = 0;
    while (answer.counted_from !== null) {
      const before = answer.counted_from;
      answer = await logVolumeResponse(db, "default", q(`&before=${before}`), now, 0);
      expect(answer.since).toBe(all.since);
      expect(answer.until).toBe(before);
      expect(answer.data.every((b) => b.start < Date.parse(before))).toBe(true);
      pieces.unshift(...answer.data);
      requests++;
    }
    expect(requests).toBeGreaterThan(1);
    expect(pieces).toEqual(all.data);
    // A `before` at or before the range's start counts nothing; a bad one is a 400.
    const none = await logVolumeResponse(db, "default", q(`&before=${all.since}`), now, 0);
    expect(none).toMatchObject({ data: [], counted_from: null });
    expect(() => q("&before=yesterday")).toThrow(/before/);
  });

  it("migration 018 counts the logs stored before it like the store stage does", async () => {
    const since = Math.floor((now - 24 * HOUR) / (30 * 60_000)) * (30 * 60_000);
    const scope = await resolveLogScope(db, "default", {});
    const before = await logVolume(db, { ...scope.where, since }, 30 * 60_000);
    await db.kysely.deleteFrom("log_volume").execute();
    await backfillLogVolume(db.kysely);
    expect(await logVolume(db, { ...scope.where, since }, 30 * 60_000)).toEqual(before);
    // And the rollup agrees with the raw rows (a text filter that matches every log).
    const raw = await logVolume(db, { ...scope.where, since, text: "#" }, 30 * 60_000);
    expect(raw.filter((b) => b.count > 0)).toEqual(before.filter((b) => b.count > 0));
  });

  it("reads a custom range (a chart zoom) for the list and the volume alike", async () => {
    const start = now - 10 * HOUR + 12_345;
    const end = now - 4 * HOUR - 6_789;
    const params = `range=custom&start=${new Date(start).toISOString()}&end=${new Date(end).toISOString()}`;
    expect(await all(params)).toEqual(expected((l) => l.ms >= start && l.ms < end));
    const volume = await logVolumeResponse(
      db,
      "default",
      parseLogsQuery(new URLSearchParams(params)),
      now,
    );
    const step = volume.step_ms;
    const since = Date.parse(volume.since);
    expect(since).toBe(Math.floor(start / step) * step);
    const reference = new Map<string, number>();
    for (const l of sent)
      if (l.ms >= since && l.ms < end) {
        const key = `${Math.floor(l.ms / step) * step}|${l.level}`;
        reference.set(key, (reference.get(key) ?? 0) + 1);
      }
    expect(reference.size).toBeGreaterThan(0);
    expect(new Map(volume.data.map((b) => [`${b.start}|${b.severity}`, b.count]))).toEqual(
      reference,
    );
    // Half a range is not one: it falls back, and the API names it.
    expect(() =>
      parseLogsQuery(new URLSearchParams("range=custom&start=2026-01-01T00:00")),
    ).toThrow(/end/);
  });

  it("filters by severity, body text, key:value attributes, environment, release and trace", async () => {
    expect(await all("severity=warn")).toEqual(expected((l) => l.level === "warn"));
    // Case-insensitive text; % is a literal character, not a wildcard.
    expect(await all("query=payment%20failed")).toEqual(
      expected((l) => l.body.includes("Payment FAILED")),
    );
    expect(await all("query=100%25")).toEqual(expected((l) => l.body.includes("100%")));
    expect(await all("query=order.id:o-3")).toEqual(
      expected((l) => l.attributes["order.id"] === "o-3"),
    );
    expect(await all("query=attempts:2%20final:true")).toEqual(
      expected((l) => l.attributes.attempts === 2 && l.attributes.final === true),
    );
    expect(await all("query=final:false%20cache")).toEqual(
      expected((l) => l.attributes.final === false && l.body.includes("cache")),
    );
    for (const [query, keep] of [
      [String.raw`note:"say \"hi\" \\ ünï"`, (l: Sent) => l.attributes.note === 'say "hi" \\ ünï'],
      ["zip:02139", (l: Sent) => l.attributes.zip === "02139"],
      [String.raw`shape:"{\"a\": 1}"`, (l: Sent) => l.attributes.shape === '{"a": 1}'],
      ["shape:[]", (l: Sent) => l.attributes.shape === "[]"],
    ] as const) {
      const want = expected(keep);
      expect(want.length, query).toBeGreaterThan(0);
      expect(await all(`query=${encodeURIComponent(query)}`), query).toEqual(want);
    }
    expect(await all("environment=staging&release=shop@2.0")).toEqual(
      expected((l) => l.env === "staging" && l.release === "shop@2.0"),
    );
    expect(await all(`trace=${"3".repeat(32)}&severity=info&severity=debug`)).toEqual(
      expected((l) => l.trace_id === "3".repeat(32) && (l.level === "info" || l.level === "debug")),
    );
    expect(() => parseLogsQuery(new URLSearchParams("severity=loud"))).toThrow(/severity/);
    expect(() => parseLogsQuery(new URLSearchParams("trace=xyz"))).toThrow(/trace/);
  });

  it("tails new lines to a reading subscriber, drops one that never reads, bounds subscribers", async () => {
    const hub = new LogTailHub(db, {
      pollMs: 30,
      bufferBytes: 4096,
      maxPerOrg: 3,
      heartbeatMs: 60_000,
    });
    const scope = await resolveLogScope(db, "default", {});
    const errorsOnly = await resolveLogScope(db, "default", { severity: ["error"] });
    const slugs = new Map(scope.projects.map((x) => [x.id, x.slug]));
    const reader = await hub.subscribe(scope.orgId, scope.where, slugs);
    const idle = await hub.subscribe(scope.orgId, scope.where, slugs);
    const filtered = await hub.subscribe(scope.orgId, errorsOnly.where, slugs);
    await expect(hub.subscribe(scope.orgId, scope.where, slugs)).rejects.toMatchObject({
      code: "rate_limited",
    });
    const received: string[] = [];
    const filteredReceived: string[] = [];
    const read = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>)
        for (const m of decoder.decode(chunk).matchAll(/^data: (.*)$/gm))
          into.push(JSON.parse(m[1] as string).body);
    };
    void read(reader, received);
    void read(filtered, filteredReceived);

    // Old lines are not replayed; each batch of new ones is one chunk per subscriber.
    let maxQueued = 0;
    for (let batch = 0; batch < 12; batch++) {
      const line = (level: string) =>
        ({ ...sent[0], body: `tail ${batch} ${level}`, level, ms: Date.now() }) as Sent;
      await p.send(envelope([line("info"), line("error")]));
      await p.worker.drain();
      await waitFor(async () => received.includes(`tail ${batch} error`), 10_000, `batch ${batch}`);
      maxQueued = Math.max(maxQueued, hub.stats().queuedBytes);
    }
    expect(received.filter((b) => b.startsWith("tail "))).toHaveLength(24);
    expect(filteredReceived).toEqual(Array.from({ length: 12 }, (_, i) => `tail ${i} error`));
    // The idle subscriber's queue never grew past its bound, and then it was dropped.
    expect(maxQueued).toBeLessThanOrEqual(4096 + 2048);
    expect(hub.stats()).toMatchObject({ subscribers: 2, dropped: 1 });
    await expect(idle.getReader().read()).rejects.toThrow(/too slow/);
    hub.close();
    expect(hub.stats()).toMatchObject({ subscribers: 0, feeds: 0 });
  });

  it("tails a row whose transaction commits after a newer row's (PostgreSQL ids)", async () => {
    // SQLite has one writer at a time: ids always appear in order there.
    if (db.dialect !== "postgres") return;
    const hub = new LogTailHub(db, { pollMs: 30, heartbeatMs: 60_000 });
    const scope = await resolveLogScope(db, "default", {});
    const slugs = new Map(scope.projects.map((x) => [x.id, x.slug]));
    const stream = await hub.subscribe(scope.orgId, scope.where, slugs);
    const received: string[] = [];
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>)
        for (const m of decoder.decode(chunk).matchAll(/^data: (.*)$/gm))
          received.push(JSON.parse(m[1] as string).body);
    })();
    await new Promise((r) => setTimeout(r, 100));
    const row = (body: string) => ({
      project_id: scope.projects[0]?.id as number,
      timestamp: Date.now(),
      trace_id: null,
      span_id: null,
      severity: "info",
      severity_number: 9,
      body,
      attributes: null,
      release: null,
      environment: null,
      received_at: Date.now(),
    });
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    // The first insert takes the lower id but commits last.
    const slow = db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto("log_items").values(row("committed late")).execute();
      await held;
    });
    await new Promise((r) => setTimeout(r, 100));
    await db.kysely.insertInto("log_items").values(row("committed first")).execute();
    await waitFor(async () => received.includes("committed first"), 10_000, "the newer row");
    release();
    await slow;
    await waitFor(async () => received.includes("committed late"), 10_000, "the late row");
    expect(received.filter((b) => b.startsWith("committed"))).toEqual([
      "committed first",
      "committed late",
    ]);
    hub.close();
  });
});

/**
 * Body text search (issue 22) through the trigram index of migration 023 (SQLite FTS5,
 * PostgreSQL pg_trgm): the same rows as reading every log, for input that is hard on an
 * index — LIKE's % and _, quotes, FTS5 syntax, unicode, 1–2 character terms, case — on both
 * databases, after retention removed logs, and after the migration filled the index for logs
 * stored before it.
 */
const TRICKY_BODIES = [
  "Payment FAILED for order 42",
  "payment failed again",
  "discount 100% applied",
  "discount 1000 applied",
  "coupon 50_OFF used",
  "coupon 50xOFF used",
  'user said "hello world" twice',
  "it's a trap'; DROP TABLE log_items; --",
  "NEAR(one two) AND three OR NOT four * ^ : -",
  "Straße gesperrt, ÄRGER im Büro",
  "straße frei, ärger vorbei",
  "🔥 hot path took 3 ms",
  "backslash \\ in C:\\temp\\x",
  "ok",
  "a",
  "Zebracorn sighting at dawn",
];

/** The case-insensitive substring the databases apply: SQLite's lower() folds ASCII only. */
function bodyMatches(dialect: string, body: string, text: string): boolean {
  const lowered =
    dialect === "sqlite" ? body.replace(/[A-Z]/g, (c) => c.toLowerCase()) : body.toLowerCase();
  return lowered.includes(text.toLowerCase());
}

const SEARCHES = [
  "payment failed",
  "PAYMENT",
  "100%",
  "%",
  "_",
  "50_off",
  "0_o",
  '"\\"hello world\\""',
  "hello",
  "it's",
  "'; DROP TABLE",
  "NEAR(one",
  "AND three OR",
  "* ^",
  "straße",
  "STRASSE",
  "ärger",
  "ÄRGER",
  "büro",
  "🔥",
  "🔥 hot",
  "\\\\",
  "ok",
  "o",
  "a",
  "zebracorn",
  "zebracorns",
  "ms",
  "",
];

describe.each(dialects)("log text search on $name", ({ name, create }) => {
  let p: Pipeline;
  let db: Db;
  const now = Date.now();
  const DAY = 86_400_000;
  const old = now - 100 * DAY;
  const line = (body: string, i: number, ms: number): Sent => ({
    body,
    level: SEVERITIES[i % 6] as string,
    ms,
    trace_id: "a".repeat(32),
    env: i % 2 ? "staging" : "production",
    release: "shop@1.0",
    attributes: { "order.id": `o-${i % 3}`, attempts: i % 2, final: true },
  });
  // Every body three times (different severity, environment and order id), and once more
  // in logs that arrived 100 days ago, which retention removes.
  const recent = [0, 1, 2].flatMap((k) =>
    TRICKY_BODIES.map((b, i) => line(b, i + k, now - (i + 20 * k) * 60_000)),
  );
  const stale = TRICKY_BODIES.map((b, i) => line(`${b} (stale)`, i, old - i * 60_000));

  beforeAll(async () => {
    p = await openPipeline(create);
    db = p.db;
    await p.send(envelope(recent), now);
    await p.send(envelope(stale), old);
    await p.worker.drain();
  });
  afterAll(async () => {
    await p?.close();
  });

  /** Bodies the API lists for a query, by the index (default) or reading every row. */
  const search = async (query: string, extra = "", noTextIndex = false) => {
    const q = parseLogsQuery(new URLSearchParams(`per_page=1000&${extra}`));
    const scope = await resolveLogScope(db, "default", { ...q, query });
    const rows = await listLogs(db, { ...scope.where, noTextIndex, limit: 1000 });
    // Newest first, like the reference's order below.
    return rows.map((r) => r.body);
  };
  const reference = (lines: Sent[], query: string, keep: (l: Sent) => boolean = () => true) => {
    const text = parseLogQuery(query).text;
    return lines
      .filter((l) => keep(l) && (text === undefined || bodyMatches(name, l.body, text)))
      .sort((a, b) => b.ms - a.ms)
      .map((l) => l.body);
  };

  it("finds what reading every row finds, for input that is hard on an index", async () => {
    for (const query of SEARCHES) {
      const want = reference([...recent, ...stale], query);
      expect(await search(query), query).toEqual(want);
      expect(await search(query, "", true), `${query} (no index)`).toEqual(want);
    }
    // The reference is not vacuous: most searches find something, some find nothing.
    const found = SEARCHES.filter((q) => reference(recent, q).length > 0);
    expect(found.length).toBeGreaterThan(20);
    expect(reference(recent, "zebracorns")).toEqual([]);
  });

  it("combines text with severity, environment, key:value and time range", async () => {
    const cases: [string, string, (l: Sent) => boolean][] = [
      ["payment", "severity=info&severity=warn", (l) => ["info", "warn"].includes(l.level)],
      ["straße", "environment=production", (l) => l.env === "production"],
      ["order.id:o-1 coupon", "", (l) => l.attributes["order.id"] === "o-1"],
      [
        "hot path",
        `range=custom&start=${now - 30 * 60_000}&end=${now + 1}`,
        (l) => l.ms >= now - 30 * 60_000 && l.ms < now + 1,
      ],
      ["ok", "severity=debug", (l) => l.level === "debug"],
    ];
    for (const [query, extra, keep] of cases) {
      const want = reference([...recent, ...stale], query, keep);
      expect(want.length, query).toBeGreaterThan(0);
      expect(await search(query, extra), query).toEqual(want);
    }
    // The histogram counts the same rows.
    const scope = await resolveLogScope(db, "default", { query: "payment" });
    const since = Math.floor((now - 2 * DAY) / 60_000) * 60_000;
    const volume = await logVolume(db, { ...scope.where, since }, 60_000);
    const scanned = await logVolume(db, { ...scope.where, since, noTextIndex: true }, 60_000);
    expect(volume).toEqual(scanned);
    expect(volume.reduce((n, b) => n + b.count, 0)).toBe(reference(recent, "payment").length);
  });

  it("stays right after retention removes logs", async () => {
    const before = await search("(stale)");
    expect(before).toHaveLength(stale.length);
    const summary = await runRetention(db, { now, pauseMs: 0 });
    expect(summary.log_items).toBe(stale.length);
    for (const query of SEARCHES) {
      const want = reference(recent, query);
      expect(await search(query), query).toEqual(want);
      expect(await search(query, "", true), `${query} (no index)`).toEqual(want);
    }
    expect(await search("(stale)")).toEqual([]);
    if (db.dialect === "sqlite") {
      // The index lost the deleted rows too, not only their matches.
      const { rows } = await sql<{ n: number }>`select count(*) as n from log_search
        where log_search match '"stale"'`.execute(db.kysely);
      expect(Number(rows[0]?.n)).toBe(0);
    }
  });

  it("migration 023 indexes the logs stored before it", async () => {
    if (db.dialect === "sqlite") {
      await sql`drop trigger log_search_ai`.execute(db.kysely);
      await sql`drop trigger log_search_ad`.execute(db.kysely);
      await sql`drop trigger log_search_au`.execute(db.kysely);
      await sql`drop table log_search`.execute(db.kysely);
    } else await sql`drop index log_items_body_trgm`.execute(db.kysely);
    await migration023.up(db.kysely);
    for (const query of SEARCHES)
      expect(await search(query), query).toEqual(reference(recent, query));
    if (db.dialect === "postgres") {
      const { rows } = await sql<{ n: number }>`select count(*) as n from pg_indexes
        where indexname = 'log_items_body_trgm' and schemaname = current_schema()`.execute(
        db.kysely,
      );
      expect(Number(rows[0]?.n)).toBe(1);
    }
  });
});
