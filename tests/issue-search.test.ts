import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexIssueSearch } from "../src/ingest/store/issue-search";
import { matchingIssues } from "../src/issues/list-query";
import {
  type Filter,
  type ParsedQuery,
  parseSearch,
  type TextValue,
} from "../src/issues/search/parse";
import { resolveSearch } from "../src/issues/search/resolve";
import { testDialects } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { openPipeline, type Pipeline } from "./helpers/pipeline";

/**
 * Search results against a reference: issues sent through the real pipeline (so the store
 * stage builds the free-text index, tag counts and users), then triaged, assigned and
 * bookmarked; every query's result on SQLite and PostgreSQL must equal what a plain
 * JavaScript filter over the same issues computes here, from what this test sent. The
 * queries cover each element of the language on its own and in a few hundred random
 * combinations.
 */
const HOUR = 3_600_000;
const NOW = Date.now();
const ISSUES = 48;
const ALICE = { id: "user-alice", email: "alice@example.com" };
const BOB = { id: "user-bob", email: "bob@example.com" };

const VALUES = [
  "Order 7 could not be loaded",
  "Cannot read properties of undefined (reading 'total')",
  "Timeout after 30s in checkout",
  "<script>alert('x')</script> rendered",
  "Payment 100% failed for cart_9",
  "Invoice [draft] not found",
];
const LEVELS = ["fatal", "error", "warning", "info", "debug"];
const ENVS = ["production", "staging", "dev"];
const BROWSERS = ["Chrome 120", "Firefox 119", "Safari 17"];

interface ModelUser {
  key: string;
  email: string | null;
  username: string | null;
}

/** What the test knows of an issue: the row's facts, and the tags, users and text it sent. */
interface Model {
  id: number;
  status: string;
  substatus: string | null;
  level: string;
  assignee: string | null;
  bookmarkedBy: Set<string>;
  firstSeen: number;
  lastSeen: number;
  timesSeen: number;
  userCount: number;
  /** key → value → first seen. */
  tags: Map<string, Map<string, number>>;
  users: ModelUser[];
  /** Lowercase searchable terms. */
  terms: string[];
}

interface Sent {
  i: number;
  events: {
    timestamp: number;
    environment: string;
    release: string;
    tags: Record<string, string>;
    user?: { id?: string; email?: string; username?: string };
  }[];
  value: string;
  functions: string[];
  modules: string[];
  files: string[];
}

function wildcard(parts: string[], text: string): boolean {
  // Exact or anchored wildcard match, written without regular expressions of the parts.
  if (parts.length === 1) return text === parts[0];
  const [first = "", ...rest] = parts;
  if (!text.startsWith(first)) return false;
  let at = first.length;
  for (let k = 0; k < rest.length; k++) {
    const part = rest[k] as string;
    if (k === rest.length - 1) return text.length - part.length >= at && text.endsWith(part);
    const found = text.indexOf(part, at);
    if (found === -1) return false;
    at = found + part.length;
  }
  return true;
}

function textMatch(v: TextValue, m: Model): boolean {
  const parts = ["", ...v.parts.map((p) => p.toLowerCase()), ""];
  return m.terms.some((t) => wildcard(parts, t));
}

function reference(q: ParsedQuery, m: Model, ctx: { userId: string; latest: string[] }): boolean {
  const emails: Record<string, string> = { [ALICE.email]: ALICE.id, [BOB.email]: BOB.id };
  const positive = (f: Filter): boolean => {
    switch (f.kind) {
      case "is":
        return f.values.some((v) => {
          if (v === "regressed") return m.substatus === "regressed";
          if (v === "assigned") return m.assignee !== null;
          if (v === "unassigned") return m.assignee === null;
          if (v === "bookmarked") return m.bookmarkedBy.has(ctx.userId);
          return m.status === v;
        });
      case "assigned":
        return f.values.some((v) =>
          v === "none"
            ? m.assignee === null
            : m.assignee === (v === "me" ? ctx.userId : emails[v.email]),
        );
      case "bookmarks":
        return f.values.some((v) =>
          m.bookmarkedBy.has((v === "me" ? ctx.userId : emails[v.email]) ?? "-"),
        );
      case "level":
        return f.values.some((v) => wildcard(v.parts, m.level));
      case "tag": {
        const values = f.values.flatMap((v) =>
          v === "latest" ? ctx.latest.map((r) => ({ parts: [r] })) : [v],
        );
        return [...(m.tags.get(f.key)?.keys() ?? [])].some((value) =>
          values.some((v) => wildcard(v.parts, value)),
        );
      }
      case "tag_empty":
        return !m.tags.has(f.key);
      case "user":
        return m.users.some((u) =>
          f.values.some((v) => {
            const keyed = wildcard([`${f.field}:${v.parts[0]}`, ...v.parts.slice(1)], u.key);
            if (f.field === "id") return keyed;
            const col = f.field === "email" ? u.email : u.username;
            return keyed || (col !== null && wildcard(v.parts, col));
          }),
        );
      case "has":
        if (f.key === "user") return m.users.length > 0;
        if (f.key === "user.email")
          return m.users.some((u) => u.email !== null || u.key.startsWith("email:"));
        if (f.key === "user.id") return m.users.some((u) => u.key.startsWith("id:"));
        if (f.key === "level") return true;
        return m.tags.has(f.key);
      case "time": {
        const value = f.field === "first_seen" ? m.firstSeen : m.lastSeen;
        const t = f.value;
        if (t.type === "relative")
          return t.direction === "newer" ? value >= NOW - t.ms : value <= NOW - t.ms;
        if (t.op === "=") return value >= t.from && value < t.to;
        return compare(value, t.op, t.from);
      }
      case "number":
        return compare(f.field === "times_seen" ? m.timesSeen : m.userCount, f.op, f.value);
      case "message":
        return textMatch(f.value, m);
    }
  };
  return (
    q.filters.every((f) => positive(f) !== f.negated) &&
    (!q.text || q.text.parts.every((p) => p === "") || textMatch(q.text, m))
  );
}

function compare(a: number, op: string, b: number): boolean {
  return op === ">"
    ? a > b
    : op === ">="
      ? a >= b
      : op === "<"
        ? a < b
        : op === "<="
          ? a <= b
          : a === b;
}

function sent(i: number): Sent {
  const events: Sent["events"] = [];
  for (let k = 0; k <= i % 4; k++) {
    const tags: Record<string, string> = { browser: BROWSERS[(i + k) % 3] as string };
    if (i % 3 !== 0) tags.region = i % 2 ? "eu-west-1" : "us-east-1";
    const user =
      (i + k) % 5 === 0
        ? undefined
        : (i + k) % 5 === 1
          ? { email: `u${i + k}@shop.test` }
          : {
              id: `u-${(i + k) % 7}`,
              email: `u${(i + k) % 7}@shop.test`,
              username: `user${(i + k) % 7}`,
            };
    events.push({
      // Distinct milliseconds, so "first seen most recently" has one answer.
      timestamp: NOW - i * 12 * HOUR - k * 7 * 60_000 - i,
      environment: ENVS[(i + k) % 3] as string,
      release: `api@1.${(i + k) % 4}.0`,
      tags,
      ...(user ? { user } : {}),
    });
  }
  return {
    i,
    events,
    value: `${VALUES[i % VALUES.length]} #${i}`,
    functions: [],
    modules: [],
    files: [],
  };
}

describe.each(await testDialects())("issue search on $name", ({ create }) => {
  let p: Pipeline;
  const models: Model[] = [];
  let orgId: number;

  beforeAll(async () => {
    p = await openPipeline(create);
    const base = realNodeErrorEvent();
    const plans = Array.from({ length: ISSUES }, (_, i) => sent(i));
    for (const plan of plans) {
      for (const [k, e] of plan.events.entries()) {
        const event = variant(base, { value: plan.value, path: `p${plan.i}` });
        event.timestamp = e.timestamp / 1000;
        event.environment = e.environment;
        event.release = e.release;
        event.tags = e.tags;
        event.level = LEVELS[plan.i % 5];
        if (e.user) event.user = e.user;
        else delete event.user;
        const top = event.exception.values.at(-1);
        if (k === 0 && top) {
          for (const f of top.stacktrace.frames) {
            if (f.in_app !== true) continue;
            plan.functions.push(String(f.function));
            if (typeof f.module === "string") plan.modules.push(f.module);
            if (typeof f.filename === "string") plan.files.push(f.filename);
          }
        }
        await p.send(
          buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
        );
      }
    }
    await p.worker.drain();

    const org = await p.db.kysely
      .selectFrom("organizations")
      .select("id")
      .executeTakeFirstOrThrow();
    orgId = Number(org.id);
    for (const u of [ALICE, BOB]) {
      await sql`insert into "user" (id, name, email, "emailVerified", "createdAt", "updatedAt")
        values (${u.id}, ${u.email}, ${u.email}, ${p.database.dialect === "postgres" ? sql`false` : sql`0`}, ${new Date().toISOString()}, ${new Date().toISOString()})`.execute(
        p.db.kysely,
      );
    }

    const rows = await p.db.kysely.selectFrom("issues").selectAll().execute();
    expect(rows).toHaveLength(ISSUES);
    for (const row of rows) {
      const i = Number(/^p(\d+)_/.exec(row.culprit ?? "")?.[1]);
      const plan = plans[i] as Sent;
      const id = Number(row.id);
      const status = i % 7 === 1 ? "resolved" : i % 7 === 2 ? "ignored" : "unresolved";
      const substatus = i % 7 === 3 ? "regressed" : null;
      const assignee = i % 5 === 1 ? ALICE.id : i % 5 === 2 ? BOB.id : null;
      await p.db.kysely
        .updateTable("issues")
        .set({ status, substatus, assignee_user_id: assignee })
        .where("id", "=", id)
        .execute();
      const bookmarkedBy = new Set<string>();
      if (i % 6 === 0) bookmarkedBy.add(ALICE.id);
      if (i % 4 === 0) bookmarkedBy.add(BOB.id);
      for (const user of bookmarkedBy) {
        await p.db.kysely
          .insertInto("issue_bookmarks")
          .values({ issue_id: id, user_id: user, created_at: NOW })
          .execute();
      }
      const tags = new Map<string, Map<string, number>>();
      const tag = (key: string, value: string, ts: number) => {
        const values = tags.get(key) ?? new Map<string, number>();
        values.set(value, Math.min(values.get(value) ?? ts, ts));
        tags.set(key, values);
      };
      const users = new Map<string, ModelUser>();
      for (const e of plan.events) {
        tag("environment", e.environment, e.timestamp);
        tag("release", e.release, e.timestamp);
        for (const [k, v] of Object.entries(e.tags)) tag(k, v, e.timestamp);
        const u = e.user;
        const key = u?.id ? `id:${u.id}` : u?.email ? `email:${u.email}` : undefined;
        if (key && u && !users.has(key))
          users.set(key, { key, email: u.email ?? null, username: u.username ?? null });
      }
      models.push({
        id,
        status,
        substatus,
        level: row.level,
        assignee,
        bookmarkedBy,
        firstSeen: Number(row.first_seen),
        lastSeen: Number(row.last_seen),
        timesSeen: Number(row.times_seen),
        userCount: Number(row.user_count),
        tags,
        users: [...users.values()],
        terms: [
          row.title,
          row.culprit ?? "",
          "Error",
          plan.value,
          ...plan.functions,
          ...plan.modules,
          ...plan.files,
        ].map((t) => t.toLowerCase()),
      });
    }
  });

  afterAll(async () => {
    await p?.close();
  });

  async function check(query: string): Promise<number> {
    const parsed = parseSearch(query);
    if (!parsed.ok) throw new Error(`${query}: ${parsed.error.message}`);
    const search = await resolveSearch(p.db, parsed.query, {
      orgId,
      projectIds: [p.projectId],
      userId: ALICE.id,
      now: NOW,
    });
    const rows = await matchingIssues(p.db, { orgId, search }).select("issues.id").execute();
    const got = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    const latest = latestRelease(models);
    const expected = models
      .filter((m) => reference(parsed.query, m, { userId: ALICE.id, latest }))
      .map((m) => m.id)
      .sort((a, b) => a - b);
    expect(got, query).toEqual(expected);
    return got.length;
  }

  it("stores what free text, users and tags are matched against", async () => {
    // The model's assumptions about the pipeline hold: counts and users agree with the rows.
    for (const m of models) expect(m.userCount, `issue ${m.id}`).toBe(m.users.length);
    const terms = await p.db.kysely
      .selectFrom("issue_search")
      .select(["issue_id", "body"])
      .execute();
    const byIssue = new Map<number, string[]>();
    for (const t of terms)
      byIssue.set(Number(t.issue_id), [
        ...(byIssue.get(Number(t.issue_id)) ?? []),
        ...t.body.split("\n"),
      ]);
    for (const m of models) {
      const stored = new Set(byIssue.get(m.id));
      for (const t of m.terms) expect(stored.has(t), `issue ${m.id} term ${t}`).toBe(true);
    }
  });

  const FIXED = [
    "",
    "is:unresolved",
    "is:resolved",
    "is:ignored",
    "is:regressed",
    "is:assigned",
    "is:unassigned",
    "is:bookmarked",
    "!is:unresolved",
    "is:[resolved, ignored]",
    "assigned:me",
    "assigned:none",
    "assigned:bob@example.com",
    "assigned:nobody@example.com",
    "!assigned:me",
    "assigned:[me, none]",
    "bookmarks:me",
    "bookmarks:bob@example.com",
    "!bookmarks:me",
    "level:error",
    "level:[warning, fatal]",
    "!level:info",
    "level:*r*",
    "release:api@1.2.0",
    "release:latest",
    "!release:latest",
    "release:api@1.*",
    "environment:production",
    "!environment:production",
    "environment:[staging, dev]",
    'browser:"Chrome 120"',
    "browser:*fox*",
    'browser:"Chrome*"',
    "region:eu-west-1",
    'region:""',
    '!region:""',
    "has:region",
    "!has:region",
    "has:user",
    "has:user.email",
    "!has:user.id",
    "user.email:u1@shop.test",
    "user.email:*@shop.test",
    "user.id:u-3",
    "user.username:user4",
    "user.username:user*",
    "age:-24h",
    "age:+7d",
    "age:<3d",
    "firstSeen:-10d",
    `firstSeen:>${new Date(NOW - 10 * 24 * HOUR).toISOString().slice(0, 10)}`,
    `lastSeen:<=${new Date(NOW - 5 * 24 * HOUR).toISOString().slice(0, 19)}Z`,
    "lastSeen:-7d",
    `lastSeen:${new Date(NOW).toISOString().slice(0, 10)}`,
    "timesSeen:>2",
    "timesSeen:1",
    "!timesSeen:>=3",
    "users:>=2",
    "users:0",
    "checkout",
    "CANNOT READ properties",
    "order * loaded",
    "100%",
    "cart_9",
    "[draft]",
    "<script>",
    "p1_",
    "capture-fixtures",
    "scripts/capture-fixtures.mjs",
    "message:timeout",
    "!message:timeout",
    "nothing-matches-this",
    "is:unresolved level:error environment:production timesSeen:>1 order",
    "is:unresolved !assigned:me release:latest has:region cannot",
    "browser:Safari*  is:unresolved users:>=1 age:-30d invoice",
  ];

  it("equals the reference on every element of the language", async () => {
    const sizes: number[] = [];
    for (const q of FIXED) sizes.push(await check(q));
    // The queries tell issues apart: most find some but not all.
    expect(sizes.filter((n) => n > 0 && n < ISSUES).length).toBeGreaterThan(FIXED.length * 0.7);
  });

  it("equals the reference on random combinations", async () => {
    let seed = 23;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pool = FIXED.filter((q) => q !== "" && !q.includes(" "));
    const sizes: number[] = [];
    for (let n = 0; n < 150; n++) {
      const terms = Array.from(
        { length: 2 + Math.floor(rand() * 4) },
        () => pool[Math.floor(rand() * pool.length)],
      );
      sizes.push(await check(terms.join(" ")));
    }
    expect(sizes.filter((n) => n > 0).length).toBeGreaterThan(20);
  });

  it("indexes a term again after the batch that wrote it rolled back, and only once", async () => {
    const id = (models[0] as Model).id;
    const term = "written then rolled back";
    await expect(
      p.db.kysely.transaction().execute(async (trx) => {
        await indexIssueSearch([{ issueId: id, terms: [term] }], trx);
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    const rows = async () =>
      Number(
        (
          await p.db.kysely
            .selectFrom("issue_search")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("issue_id", "=", id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await rows();
    await p.db.kysely
      .transaction()
      .execute((trx) => indexIssueSearch([{ issueId: id, terms: [term] }], trx));
    expect(await rows()).toBe(before + 1);
    await p.db.kysely
      .transaction()
      .execute((trx) => indexIssueSearch([{ issueId: id, terms: [term] }], trx));
    expect(await rows()).toBe(before + 1);
    const parsed = parseSearch("rolled back");
    if (!parsed.ok) throw new Error("parse");
    const search = await resolveSearch(p.db, parsed.query, {
      orgId,
      projectIds: [p.projectId],
      userId: null,
      now: NOW,
    });
    const found = await matchingIssues(p.db, { orgId, search }).select("issues.id").execute();
    expect(found.map((r) => Number(r.id))).toEqual([id]);
  });

  it("needs a user for me, and treats unknown emails as nobody", async () => {
    const parsed = parseSearch("assigned:me");
    if (!parsed.ok) throw new Error("parse");
    await expect(
      resolveSearch(p.db, parsed.query, {
        orgId,
        projectIds: [p.projectId],
        userId: null,
        now: NOW,
      }),
    ).rejects.toThrow(/needs a signed-in user/);
    expect(await check("assigned:nobody@example.com")).toBe(0);
  });
});

/** The release first seen most recently on any issue (what release:latest resolves to). */
function latestRelease(models: Model[]): string[] {
  let best: { value: string; at: number } | undefined;
  for (const m of models) {
    for (const [value, at] of m.tags.get("release") ?? []) {
      if (!best || at > best.at) best = { value, at };
    }
  }
  return best ? [best.value] : [];
}
