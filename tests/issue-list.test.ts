import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { indexIssueSearch } from "../src/ingest/store/issue-search";
import { recentEventValues } from "../src/issues/list-options";
import { type IssueListQuery, listOrgIssues } from "../src/issues/list-query";
import type { IssueSort } from "../src/issues/schemas";
import { prepareSearch } from "../src/issues/search/resolve";
import { issueSparklines } from "../src/issues/sparklines";
import { type TestDatabase, testDialects } from "./helpers/databases";

/**
 * The issue list's queries on both dialects: every filter, every sort, and keyset paging in
 * both directions over ties, against rows written straight into the schema.
 */
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 22, 12, 30);

interface Seed {
  project: number;
  title: string;
  level?: string;
  status?: "unresolved" | "resolved" | "ignored";
  substatus?: string | null;
  lastSeen: number;
  firstSeen?: number;
  events?: number;
  users?: number;
  eventRows?: { environment?: string; release?: string; timestamp?: number }[];
}

interface ListOptions {
  /** The search; default is:unresolved. */
  query?: string;
  projectIds?: number[];
  sort?: IssueSort;
  after?: string;
  before?: string;
  limit?: number;
}

/** The org's list as the page asks for it: the search resolved, then the page. */
async function list(db: Db, o: ListOptions = {}) {
  const search = await prepareSearch(db, o.query ?? "is:unresolved", {
    orgId: 1,
    projectIds: o.projectIds ?? [1, 2],
    userId: null,
    now: NOW,
  });
  const q: IssueListQuery = {
    orgId: 1,
    projectIds: o.projectIds,
    search,
    sort: o.sort ?? "last_seen",
    after: o.after,
    before: o.before,
    limit: o.limit,
  };
  return listOrgIssues(db, q);
}

async function insertIssues(db: Db, seeds: Seed[]): Promise<number[]> {
  const ids: number[] = [];
  let n = 0;
  for (const s of seeds) {
    const row = await db.kysely
      .insertInto("issues")
      .values({
        project_id: s.project,
        fingerprint: `fp-${n++}-${s.title}`,
        title: s.title,
        culprit: `handler(${s.title.length})`,
        type: "Error",
        value: s.title,
        level: s.level ?? "error",
        platform: "node",
        status: s.status ?? "unresolved",
        substatus: s.substatus ?? null,
        first_seen: s.firstSeen ?? s.lastSeen - HOUR,
        last_seen: s.lastSeen,
        times_seen: s.events ?? 1,
        user_count: s.users ?? 0,
        metadata: "{}",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const id = Number(row.id);
    ids.push(id);
    // The free-text index the store stage keeps: title and culprit, lowercase.
    await db.kysely
      .transaction()
      .execute((trx) =>
        indexIssueSearch(
          [{ issueId: id, terms: [s.title.toLowerCase(), `handler(${s.title.length})`] }],
          trx,
        ),
      );
    for (const e of s.eventRows ?? []) {
      await db.kysely
        .insertInto("events")
        .values({
          project_id: s.project,
          issue_id: id,
          event_id: `${id}-${n++}`.padEnd(32, "0"),
          timestamp: e.timestamp ?? s.lastSeen,
          received_at: e.timestamp ?? s.lastSeen,
          level: s.level ?? "error",
          title: s.title,
          release: e.release ?? null,
          environment: e.environment ?? null,
          platform: "node",
          user_key: null,
          trace_id: null,
          payload: Buffer.from("x"),
        })
        .execute();
      // What the store stage counts for the issue page, and the list filters on.
      for (const [key, value] of [
        ["environment", e.environment],
        ["release", e.release],
      ] as const) {
        if (!value) continue;
        const ts = e.timestamp ?? s.lastSeen;
        await db.kysely
          .insertInto("issue_tags")
          .values({ issue_id: id, key, value, times_seen: 1, first_seen: ts, last_seen: ts })
          .onConflict((oc) =>
            oc
              .columns(["issue_id", "key", "value"])
              .doUpdateSet((eb) => ({ times_seen: eb("issue_tags.times_seen", "+", 1) })),
          )
          .execute();
      }
    }
  }
  return ids;
}

describe.each(await testDialects())("issue list on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  /** Org 1 has projects 1 (api) and 2 (web); org 2's project 3 must never show up. */
  let ids: Record<string, number>;

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    for (const [id, slug] of [
      [1, "acme"],
      [2, "globex"],
    ] as const)
      await db.kysely
        .insertInto("organizations")
        .values({ id, slug, name: slug, created_at: NOW })
        .execute();
    for (const [id, org, slug] of [
      [1, 1, "api"],
      [2, 1, "web"],
      [3, 2, "other"],
    ] as const)
      await db.kysely
        .insertInto("projects")
        .values({ id, organization_id: org, slug, name: slug, platform: null, created_at: NOW })
        .execute();
    const named: [string, Seed][] = [
      [
        "typeError",
        {
          project: 1,
          title: "TypeError: x is undefined",
          lastSeen: NOW - 1 * HOUR,
          events: 40,
          users: 3,
          eventRows: [{ environment: "production", release: "api@1.0.0" }],
        },
      ],
      [
        "warning",
        {
          project: 1,
          title: "Slow query on orders",
          level: "warning",
          lastSeen: NOW - 2 * HOUR,
          events: 5,
          users: 9,
          firstSeen: NOW - 90 * HOUR,
          eventRows: [{ environment: "staging", release: "api@1.1.0" }],
        },
      ],
      [
        "percent",
        {
          project: 2,
          title: "Progress stuck at 100% done",
          lastSeen: NOW - 3 * HOUR,
          events: 12,
          users: 1,
          eventRows: [
            { environment: "staging", release: "web@2.0.0" },
            { environment: "production", release: "web@2.0.1" },
          ],
        },
      ],
      [
        "resolved",
        {
          project: 2,
          title: "ReferenceError: gone",
          status: "resolved",
          lastSeen: NOW - 4 * HOUR,
          events: 100,
        },
      ],
      [
        "ignored",
        { project: 1, title: "Noise from a bot", status: "ignored", lastSeen: NOW - 5 * HOUR },
      ],
      [
        "regressed",
        {
          project: 2,
          title: "TypeError: came back",
          substatus: "regressed",
          lastSeen: NOW - 6 * HOUR,
          events: 7,
        },
      ],
      [
        "otherOrg",
        {
          project: 3,
          title: "TypeError: in another org",
          lastSeen: NOW,
          events: 1000,
          eventRows: [{ environment: "secret-env", release: "other@9" }],
        },
      ],
    ];
    const created = await insertIssues(
      db,
      named.map(([, s]) => s),
    );
    ids = Object.fromEntries(named.map(([name], i) => [name, created[i] as number]));
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const titles = async (o: ListOptions) => (await list(db, o)).items.map((i) => i.id);

  it("shows the organization's unresolved issues, newest first, regressed included", async () => {
    const page = await list(db);
    expect(page.items.map((i) => i.id)).toEqual([
      ids.typeError,
      ids.warning,
      ids.percent,
      ids.regressed,
    ]);
    expect(page.total).toBe(4);
    expect(page.after).toBeUndefined();
    expect(page.before).toBeUndefined();
    const first = page.items[0];
    expect(first).toMatchObject({ projectSlug: "api", events: 40, users: 3, level: "error" });
    expect(page.items.at(-1)?.substatus).toBe("regressed");
  });

  it("filters by status, project, level and title text", async () => {
    expect(await titles({ query: "is:resolved" })).toEqual([ids.resolved]);
    expect(await titles({ query: "is:ignored" })).toEqual([ids.ignored]);
    expect(await titles({ query: "" })).toHaveLength(6);
    expect(await titles({ projectIds: [2] })).toEqual([ids.percent, ids.regressed]);
    // No project of the organization matches nothing, never another org's project.
    expect(await titles({ projectIds: [] })).toEqual([]);
    expect(await titles({ query: "is:unresolved level:warning" })).toEqual([ids.warning]);
    expect(await titles({ query: "is:unresolved typeerror" })).toEqual([
      ids.typeError,
      ids.regressed,
    ]);
    // LIKE's and GLOB's wildcards in the text are literal characters.
    expect(await titles({ query: "is:unresolved 100%" })).toEqual([ids.percent]);
    expect(await titles({ query: "is:unresolved %" })).toEqual([ids.percent]);
    expect(await titles({ query: "is:unresolved _" })).toEqual([]);
    expect(await titles({ query: "is:unresolved ?" })).toEqual([]);
    expect(await titles({ query: "is:unresolved [" })).toEqual([]);
    expect(await titles({ projectIds: [1], query: "is:unresolved level:error undefined" })).toEqual(
      [ids.typeError],
    );
  });

  it("filters by environment and release through the issue's events", async () => {
    expect(await titles({ query: "is:unresolved environment:staging" })).toEqual([
      ids.warning,
      ids.percent,
    ]);
    expect(await titles({ query: "is:unresolved environment:production" })).toEqual([
      ids.typeError,
      ids.percent,
    ]);
    expect(await titles({ query: "is:unresolved release:web@2.0.1" })).toEqual([ids.percent]);
    expect(await titles({ query: "is:unresolved environment:staging release:api@1.1.0" })).toEqual([
      ids.warning,
    ]);
    expect(await titles({ query: "is:unresolved environment:nowhere" })).toEqual([]);
  });

  it("suggests the environments and releases of the organization's recent events", async () => {
    expect(await recentEventValues(db, [1, 2])).toEqual({
      environments: ["production", "staging"],
      releases: ["api@1.0.0", "api@1.1.0", "web@2.0.0", "web@2.0.1"],
    });
  });

  it("sorts by events, users and first seen", async () => {
    expect(await titles({ sort: "events" })).toEqual([
      ids.typeError,
      ids.percent,
      ids.regressed,
      ids.warning,
    ]);
    expect(await titles({ sort: "users" })).toEqual([
      ids.warning,
      ids.typeError,
      ids.percent,
      ids.regressed,
    ]);
    expect((await titles({ sort: "first_seen" }))[3]).toBe(ids.warning);
  });

  it("pages forward and back by cursor over ties, without gaps or repeats", async () => {
    // 23 issues in project 1 with equal event counts: only the id orders them.
    const tied = await insertIssues(
      db,
      Array.from({ length: 23 }, (_, i) => ({
        project: 1,
        title: `Tied ${i}`,
        lastSeen: NOW - (100 + (i % 4)) * HOUR,
        events: 3,
      })),
    );
    for (const sort of ["events", "last_seen"] as const) {
      const all = await titles({ sort, query: "is:unresolved tied", limit: 200 });
      expect(all).toHaveLength(23);
      const seen: number[] = [];
      const pages: { items: number[]; before?: string }[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await list(db, { sort, query: "is:unresolved tied", after, limit: 5 });
        seen.push(...page.items.map((i) => i.id));
        pages.push({ items: page.items.map((i) => i.id), before: page.before });
        if (!page.after) break;
        after = page.after;
      }
      expect(seen).toEqual(all);
      expect(pages.map((p) => p.items.length)).toEqual([5, 5, 5, 5, 3]);
      // Back from the last page: the previous page again, exactly.
      const back = await list(db, {
        sort,
        query: "is:unresolved tied",
        before: pages[4]?.before,
        limit: 5,
      });
      expect(back.items.map((i) => i.id)).toEqual(pages[3]?.items);
      expect(back.after).toBeDefined();
      expect(back.before).toBeDefined();
      const firstAgain = await list(db, {
        sort,
        query: "is:unresolved tied",
        before: pages[1]?.before,
        limit: 5,
      });
      expect(firstAgain.items.map((i) => i.id)).toEqual(pages[0]?.items);
      expect(firstAgain.before).toBeUndefined();
    }
    expect(tied).toHaveLength(23);
  });

  it("counts events per hour for the sparklines", async () => {
    const [quiet, busy] = await insertIssues(db, [
      { project: 1, title: "Quiet", lastSeen: NOW - 48 * HOUR },
      {
        project: 1,
        title: "Busy",
        lastSeen: NOW,
        eventRows: [
          { timestamp: NOW - 10 * 60_000 },
          { timestamp: NOW - 20 * 60_000 },
          { timestamp: NOW - 5 * HOUR },
          { timestamp: NOW - 30 * HOUR },
        ],
      },
    ]);
    const series = await issueSparklines(db, [quiet as number, busy as number], "24h", NOW);
    expect(series.get(quiet as number)).toEqual(new Array(24).fill(0));
    const b = series.get(busy as number) ?? [];
    expect(b).toHaveLength(24);
    expect(b[23]).toBe(2);
    expect(b[18]).toBe(1);
    expect(b.reduce((x, y) => x + y, 0)).toBe(3);
    const days = await issueSparklines(db, [busy as number], "14d", NOW);
    expect(days.get(busy as number)?.reduce((x, y) => x + y, 0)).toBe(4);
  });
});
