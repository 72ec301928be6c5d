import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { OutcomeCounter } from "../src/ingest/process/outcomes";
import { routeFingerprints } from "../src/ingest/store/fingerprint-routes";
import { deleteIssues, listTombstones, removeTombstone } from "../src/issues/bulk/delete";
import { mergeIssues } from "../src/issues/bulk/merge";
import { issueFingerprints, unmergeIssue } from "../src/issues/bulk/unmerge";
import { bulkUpdateIssues } from "../src/issues/bulk/update";
import { prepareSearch } from "../src/issues/search/resolve";
import { runRetention } from "../src/maintenance/retention";
import { testDialects } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { openPipeline, type Pipeline } from "./helpers/pipeline";

/**
 * Merge, unmerge, delete, discard and bulk triage on both dialects, with events sent
 * through the real pipeline before and after, so the store stage's routing of merged and
 * discarded fingerprints is what is tested.
 */
const ACTOR = { userId: "user-owner", label: "owner@example.com" };
const base = realNodeErrorEvent();

describe.each(await testDialects())(
  "merge, unmerge, delete and bulk on $name",
  ({ name, create }) => {
    let p: Pipeline;
    let db: Db;
    let orgId: number;
    let t = Date.now() - 3_600_000;

    /** Sends events of code path `path` (its own fingerprint), drains, returns the issue id. */
    async function send(
      path: string,
      opts: { count?: number; user?: string; tag?: string; value?: string } = {},
    ): Promise<number> {
      for (let i = 0; i < (opts.count ?? 1); i++) {
        const event = variant(base, {
          path,
          value: opts.value ?? `failure in ${path}`,
          user: opts.user,
        });
        t += 1000;
        event.timestamp = t / 1000;
        event.tags = { part: opts.tag ?? path };
        await p.send(
          buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
        );
      }
      await p.worker.drain();
      return issueOf(path);
    }

    async function issueOf(path: string): Promise<number> {
      const rows = await db.kysely
        .selectFrom("events")
        .select("issue_id")
        .where("title", "=", `Error: failure in ${path}`)
        .orderBy("id", "desc")
        .execute();
      return Number(rows[0]?.issue_id);
    }

    const issue = (id: number) =>
      db.kysely.selectFrom("issues").selectAll().where("id", "=", id).executeTakeFirst();
    const tags = async (id: number) =>
      Object.fromEntries(
        (
          await db.kysely
            .selectFrom("issue_tags")
            .select(["value", "times_seen"])
            .where("issue_id", "=", id)
            .where("key", "=", "part")
            .execute()
        ).map((r) => [r.value, Number(r.times_seen)]),
      );
    const eventCount = async (id: number) =>
      Number(
        (
          await db.kysely
            .selectFrom("events")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("issue_id", "=", id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const searchIds = async (text: string) => {
      const search = await prepareSearch(db, text, {
        orgId,
        projectIds: [p.projectId],
        userId: ACTOR.userId,
        now: Date.now(),
      });
      return search;
    };

    beforeAll(async () => {
      p = await openPipeline(create);
      db = p.db;
      orgId = Number(
        (await db.kysely.selectFrom("organizations").select("id").executeTakeFirstOrThrow()).id,
      );
    });

    afterAll(async () => {
      await p?.close();
    });

    it("merges issues into the one with most events; later events of any go to it; unmerge moves them back", async () => {
      const a = await send("merge_a", { count: 3, user: "ua" });
      const b = await send("merge_b", { count: 2, user: "ub" });
      const c = await send("merge_c", { count: 1, user: "ua" });
      const before = await Promise.all([a, b, c].map(issue));
      const result = await mergeIssues(db, orgId, ACTOR, [b, c, a]);
      expect(result).toEqual({ parentId: a, childIds: expect.arrayContaining([b, c]) });
      expect(await issue(b)).toBeUndefined();
      expect(await issue(c)).toBeUndefined();
      const merged = await issue(a);
      expect(merged).toMatchObject({
        times_seen: 6,
        user_count: 2,
        first_seen: Math.min(...before.map((i) => Number(i?.first_seen))),
        last_seen: Math.max(...before.map((i) => Number(i?.last_seen))),
        // The newest of the merged issues names it.
        title: "Error: failure in merge_c",
      });
      expect(await eventCount(a)).toBe(6);
      expect(await tags(a)).toEqual({ merge_a: 3, merge_b: 2, merge_c: 1 });
      // Free text finds the merged issue by what only a child had.
      const found = await searchIds("merge_b");
      expect(found.query.text?.parts).toEqual(["merge_b"]);
      const audit = await db.kysely
        .selectFrom("audit_log")
        .select(["action", "target"])
        .where("action", "=", "issue.merge")
        .execute();
      expect(audit).toEqual([{ action: "issue.merge", target: `issue ${a}` }]);

      // A later event of a merged fingerprint goes to the merged issue.
      expect(await send("merge_b", { user: "ub2" })).toBe(a);
      expect(await issue(a)).toMatchObject({ times_seen: 7, user_count: 3 });
      expect(
        await db.kysely
          .selectFrom("issues")
          .select("id")
          .where("title", "like", "%merge_%")
          .execute(),
      ).toEqual([{ id: a }]);

      const prints = await issueFingerprints(db, {
        id: a,
        project_id: p.projectId,
        fingerprint: String(merged?.fingerprint),
      });
      expect(prints.map((f) => [f.primary, f.events])).toEqual([
        [true, 3],
        [false, 3],
        [false, 1],
      ]);
      const bPrint = prints.find((f) => f.latest?.title === "Error: failure in merge_b")
        ?.fingerprint as string;

      // Unmerge b: its 3 events (2 from before the merge, 1 after) form an issue again.
      const split = await unmergeIssue(db, orgId, ACTOR, a, [bPrint]);
      expect(split.events).toBe(3);
      expect(await issue(split.issueId)).toMatchObject({
        times_seen: 3,
        user_count: 2,
        fingerprint: bPrint,
        title: "Error: failure in merge_b",
      });
      expect(await tags(split.issueId)).toEqual({ merge_b: 3 });
      expect(await issue(a)).toMatchObject({ times_seen: 4, user_count: 1 });
      expect(await tags(a)).toEqual({ merge_a: 3, merge_c: 1 });
      expect(await eventCount(a)).toBe(4);
      // And b's later events follow it.
      expect(await send("merge_b")).toBe(split.issueId);
      expect(await issue(split.issueId)).toMatchObject({ times_seen: 4 });
      // c still routes to a.
      expect(await send("merge_c")).toBe(a);

      // Unmerging the issue's own fingerprint: the issue keeps c's as its own.
      const own = String(merged?.fingerprint);
      const apart = await unmergeIssue(db, orgId, ACTOR, a, [own]);
      expect(apart.events).toBe(3);
      expect((await issue(a))?.fingerprint).not.toBe(own);
      expect(await tags(a)).toEqual({ merge_c: 2 });
      expect(await send("merge_a")).toBe(apart.issueId);
      expect(await send("merge_c")).toBe(a);
    });

    it("names what cannot be merged or unmerged, and changes nothing", async () => {
      const x = await send("bad_x");
      const y = await send("bad_y");
      await expect(mergeIssues(db, orgId, ACTOR, [x])).rejects.toThrow(/two or more/);
      // Another organization's issue reads as not in this organization (no existence leak).
      const other = await db.kysely
        .insertInto("organizations")
        .values({ slug: "other", name: "Other", created_at: 0 })
        .returning("id")
        .executeTakeFirstOrThrow();
      const proj = await db.kysely
        .insertInto("projects")
        .values({ organization_id: other.id, slug: "o", name: "o", platform: null, created_at: 0 })
        .returning("id")
        .executeTakeFirstOrThrow();
      const foreign = await db.kysely
        .insertInto("issues")
        .values({
          project_id: proj.id,
          fingerprint: "f",
          title: "theirs",
          culprit: null,
          type: "Error",
          value: "",
          level: "error",
          platform: null,
          status: "unresolved",
          substatus: null,
          first_seen: 0,
          last_seen: 0,
          times_seen: 1,
          user_count: 0,
          metadata: "{}",
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await expect(mergeIssues(db, orgId, ACTOR, [x, Number(foreign.id)])).rejects.toThrow(
        `issue ${foreign.id} is not in this organization`,
      );
      await expect(
        mergeIssues(db, Number(other.id), ACTOR, [x, Number(foreign.id)]),
      ).rejects.toThrow(`issue ${x} is not in this organization`);
      // Two projects of one organization.
      const second = await db.kysely
        .insertInto("projects")
        .values({
          organization_id: orgId,
          slug: "second",
          name: "second",
          platform: null,
          created_at: 0,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await db.kysely
        .updateTable("issues")
        .set({ project_id: second.id })
        .where("id", "=", y)
        .execute();
      await expect(mergeIssues(db, orgId, ACTOR, [x, y])).rejects.toThrow(/one project/);
      await db.kysely
        .updateTable("issues")
        .set({ project_id: p.projectId })
        .where("id", "=", y)
        .execute();
      expect(await issue(x)).toBeDefined();
      expect(await issue(y)).toBeDefined();

      const xi = await issue(x);
      await expect(unmergeIssue(db, orgId, ACTOR, x, [String(xi?.fingerprint)])).rejects.toThrow(
        /at least one fingerprint must stay/,
      );
      await expect(unmergeIssue(db, orgId, ACTOR, x, ["abc"])).rejects.toThrow(
        /not a fingerprint of this issue/,
      );
      await expect(unmergeIssue(db, Number(other.id), ACTOR, x, ["abc"])).rejects.toThrow(
        /issue not found/,
      );
    });

    it("finishes deleting an issue's events after a crash between the issue and its events", async () => {
      const d = await send("del_crash", { count: 3 });
      // A real fault where the process would have died: the events' statements fail.
      const sqlite = p.database.dialect === "sqlite";
      const statements = (on: boolean) =>
        on
          ? sqlite
            ? [
                "CREATE TRIGGER no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'crash'); END",
              ]
            : [
                "CREATE FUNCTION no_delete() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'crash'; END $$ LANGUAGE plpgsql",
                "CREATE TRIGGER no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION no_delete()",
              ]
          : [sqlite ? "DROP TRIGGER no_delete" : "DROP TRIGGER no_delete ON events"];
      const refuse = async (on: boolean) => {
        for (const statement of statements(on)) await sql.raw(statement).execute(db.kysely);
      };
      await refuse(true);
      await expect(
        deleteIssues(db, orgId, ACTOR, { ids: [d] }, { discard: false }),
      ).rejects.toThrow(/crash/);
      await refuse(false);
      expect(await issue(d)).toBeUndefined();
      expect(await eventCount(d)).toBe(3);
      // Retention (on its next run, in the worker) finishes what the deletion began.
      expect((await runRetention(db, { pauseMs: 0 })).events).toBe(3);
      expect(await eventCount(d)).toBe(0);
      expect(await db.kysely.selectFrom("issue_deletions").selectAll().execute()).toEqual([]);
    });

    it("deletes issues with their events; a new event starts over unless discarded", async () => {
      const d = await send("del_d", { count: 2 });
      const k = await send("del_k", { count: 3 });
      const deleted = await deleteIssues(db, orgId, ACTOR, { ids: [d] }, { discard: false });
      expect(deleted).toMatchObject({ deleted: 1, events: 2 });
      expect(await issue(d)).toBeUndefined();
      expect(await eventCount(d)).toBe(0);
      const again = await send("del_d");
      expect(again).not.toBe(d);
      expect(await issue(again)).toMatchObject({ times_seen: 1 });

      const discarded = await deleteIssues(db, orgId, ACTOR, { ids: [k] }, { discard: true });
      expect(discarded).toMatchObject({ deleted: 1, events: 3 });
      const before = await p.quantity("error", "filtered", "discarded_hash");
      const eventsBefore = await db.kysely
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      await send("del_k", { count: 2 });
      expect(await p.quantity("error", "filtered", "discarded_hash")).toBe(before + 2);
      const eventsAfter = await db.kysely
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(eventsAfter.n)).toBe(Number(eventsBefore.n));
      expect(
        await db.kysely
          .selectFrom("issues")
          .select("id")
          .where("title", "=", "Error: failure in del_k")
          .execute(),
      ).toEqual([]);

      const [tombstone] = await listTombstones(db, orgId, p.projectId);
      expect(tombstone).toMatchObject({
        title: "Error: failure in del_k",
        actor_label: ACTOR.label,
      });
      await removeTombstone(db, orgId, ACTOR, Number(tombstone?.id));
      const back = await send("del_k");
      expect(await issue(back)).toMatchObject({ times_seen: 1 });
      const actions = (await db.kysely.selectFrom("audit_log").select("action").execute()).map(
        (r) => r.action,
      );
      expect(actions).toEqual(
        expect.arrayContaining(["issue.delete", "issue.discard", "tombstone.remove"]),
      );
    });

    it("discards a merged issue's every fingerprint", async () => {
      const m = await send("disc_m", { count: 2 });
      const n = await send("disc_n");
      await mergeIssues(db, orgId, ACTOR, [m, n]);
      await deleteIssues(db, orgId, ACTOR, { ids: [m] }, { discard: true });
      const before = await p.quantity("error", "filtered", "discarded_hash");
      await send("disc_m");
      await send("disc_n");
      expect(await p.quantity("error", "filtered", "discarded_hash")).toBe(before + 2);
    });

    it("changes many issues at once and counts only those it changed", async () => {
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) ids.push(await send(`bulk_${i}`));
      await db.kysely
        .updateTable("issues")
        .set({ status: "resolved" })
        .where("id", "in", ids.slice(0, 4))
        .execute();
      const search = await searchIds("bulk_");
      const scope = { scope: { orgId, search }, query: "bulk_" };
      const resolved = await bulkUpdateIssues(db, orgId, ACTOR, scope, { action: "resolve" });
      expect(resolved).toEqual({ matched: 12, changed: 8, truncated: false });
      expect(await bulkUpdateIssues(db, orgId, ACTOR, scope, { action: "resolve" })).toMatchObject({
        changed: 0,
      });
      const rows = await db.kysely
        .selectFrom("issues")
        .select("status")
        .where("id", "in", ids)
        .execute();
      expect(rows.every((r) => r.status === "resolved")).toBe(true);

      // Picked ids: another organization's are simply not among them.
      expect(
        await bulkUpdateIssues(
          db,
          orgId,
          ACTOR,
          { ids: [ids[0] as number, 999_999] },
          { action: "ignore" },
        ),
      ).toMatchObject({
        matched: 1,
        changed: 1,
      });
      await expect(
        bulkUpdateIssues(
          db,
          orgId,
          ACTOR,
          { ids },
          { action: "assign", assigneeUserId: "a-stranger" },
        ),
      ).rejects.toThrow(/not a member/);
      expect(
        await db.kysely
          .selectFrom("issues")
          .select("id")
          .where("assignee_user_id", "is not", null)
          .execute(),
      ).toEqual([]);

      const marked = await bulkUpdateIssues(
        db,
        orgId,
        ACTOR,
        { ids: ids.slice(0, 5) },
        { action: "bookmark" },
      );
      expect(marked.changed).toBe(5);
      expect(
        (await bulkUpdateIssues(db, orgId, ACTOR, { ids }, { action: "bookmark" })).changed,
      ).toBe(7);
      expect(
        (
          await bulkUpdateIssues(
            db,
            orgId,
            ACTOR,
            { ids: ids.slice(0, 3) },
            { action: "unbookmark" },
          )
        ).changed,
      ).toBe(3);
      const bookmarks = await prepareSearch(db, "bookmarks:me bulk_", {
        orgId,
        projectIds: [p.projectId],
        userId: ACTOR.userId,
        now: Date.now(),
      });
      const { matchingIssues } = await import("../src/issues/list-query");
      expect(
        (await matchingIssues(db, { orgId, search: bookmarks }).select("issues.id").execute())
          .length,
      ).toBe(9);
      const audit = await db.kysely
        .selectFrom("audit_log")
        .select("details")
        .where("action", "=", "issue.bulk_update")
        .execute();
      expect(audit.map((a) => JSON.parse(String(a.details)).count)).toEqual([8, 1, 5, 7, 3]);
    });

    it("tells each issue's timeline what bulk changes, merges and unmerges did, and deletes it with the issue", async () => {
      const kinds = async (id: number) =>
        (
          await db.kysely
            .selectFrom("issue_activity")
            .select(["kind", "user_id", "data"])
            .where("issue_id", "=", id)
            .orderBy("id")
            .execute()
        ).map((r) => ({ kind: r.kind, user: r.user_id, data: JSON.parse(String(r.data)) }));
      const x = await send("timeline_x", { count: 2 });
      const y = await send("timeline_y");
      await db.kysely
        .updateTable("issues")
        .set({ status_details: JSON.stringify({ inNextRelease: true }) })
        .where("id", "=", y)
        .execute();
      await bulkUpdateIssues(db, orgId, ACTOR, { ids: [x, y] }, { action: "resolve" });
      expect(await kinds(y)).toEqual([{ kind: "resolved", user: ACTOR.userId, data: null }]);
      // A bulk status change drops the condition a single resolve may have set.
      expect((await issue(y))?.status_details).toBeNull();

      await mergeIssues(db, orgId, ACTOR, [x, y]);
      // y's entries moved to x, then the merge itself was told.
      expect((await kinds(x)).map((k) => k.kind)).toEqual(["resolved", "resolved", "merged"]);
      expect((await kinds(x)).at(-1)?.data).toMatchObject({ count: 1 });
      expect(await kinds(y)).toEqual([]);

      const merged = await issue(x);
      if (!merged) throw new Error("the merged issue is gone");
      const yPrint = (await issueFingerprints(db, merged)).find((f) => !f.primary)?.fingerprint;
      expect(yPrint).toBeDefined();
      const split = await unmergeIssue(db, orgId, ACTOR, x, [String(yPrint)]);
      expect((await kinds(x)).at(-1)).toMatchObject({
        kind: "unmerged",
        data: { other: split.issueId, events: 1 },
      });
      expect(await kinds(split.issueId)).toEqual([
        { kind: "unmerged", user: ACTOR.userId, data: { other: x, fingerprints: 1, events: 1 } },
      ]);

      await deleteIssues(db, orgId, ACTOR, { ids: [x, split.issueId] }, { discard: false });
      const left = await db.kysely
        .selectFrom("issue_activity")
        .select("id")
        .where("issue_id", "in", [x, split.issueId])
        .execute();
      expect(left).toEqual([]);
    });

    it.runIf(name === "postgres")(
      "makes a merge wait for a store batch in flight, and the batch wait for a merge",
      async () => {
        const a = await send("lock_a", { count: 2 });
        const b = await send("lock_b");
        const hashOf = async (id: number) => String((await issue(id))?.fingerprint);
        const fingerprint = await hashOf(b);
        let release = () => {};
        const gate = new Promise<void>((r) => {
          release = r;
        });
        let holding = () => {};
        const held = new Promise<void>((r) => {
          holding = r;
        });
        // A batch that has read its routes (no route for b yet) and not yet committed.
        const batch = db.kysely.transaction().execute(async (trx) => {
          await routeFingerprints(
            [
              {
                projectId: p.projectId,
                receivedAt: Date.now(),
                grouping: { hash: fingerprint },
                event: { event_id: "x".repeat(32) },
              },
            ],
            new OutcomeCounter(),
            trx,
          );
          holding();
          await gate;
        });
        await held;
        let merged = false;
        const merge = mergeIssues(db, orgId, ACTOR, [a, b]).then((r) => {
          merged = true;
          return r;
        });
        await new Promise((r) => setTimeout(r, 300));
        expect(merged).toBe(false);
        release();
        await batch;
        expect((await merge).parentId).toBe(a);
        // And a batch now finds the route the merge wrote.
        const after = await db.kysely.transaction().execute((trx) =>
          routeFingerprints(
            [
              {
                projectId: p.projectId,
                receivedAt: Date.now(),
                grouping: { hash: fingerprint },
                event: { event_id: "y".repeat(32) },
              },
            ],
            new OutcomeCounter(),
            trx,
          ),
        );
        expect(after.kept[0]?.grouping.hash).toBe(await hashOf(a));
        expect(after.moved).toEqual([
          { projectId: p.projectId, eventId: "y".repeat(32), fingerprint },
        ]);
      },
    );
  },
);
