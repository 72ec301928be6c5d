import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuth } from "../src/auth/auth";
import { createPasswordUser } from "../src/auth/credentials";
import { accountsDb } from "../src/auth/tables";
import { issueTimeline } from "../src/issues/activity";
import { assignIssue } from "../src/issues/assignment";
import { addComment, deleteComment, editComment } from "../src/issues/comments";
import { unignoreExpired } from "../src/issues/snooze-sweep";
import { changeIssueStatus } from "../src/issues/status-change";
import { parseStatusDetails } from "../src/issues/status-details";
import { testDialects } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { openPipeline, type Pipeline } from "./helpers/pipeline";

/**
 * Issue 23 part B on each database: conditions of resolved and ignored issues met (or not)
 * by events through the real queue, worker and store stage, with the reason in the timeline;
 * assignment and comments with their rules.
 */
const dialects = await testDialects();

describe.each(dialects)("triage as a team on $name", ({ create }) => {
  let p: Pipeline;
  let orgId: number;
  let otherOrgId: number;
  const users: Record<"owner" | "member" | "other" | "stranger", string> = {
    owner: "",
    member: "",
    other: "",
    stranger: "",
  };
  const base = realNodeErrorEvent();
  let path = 0;

  beforeAll(async () => {
    p = await openPipeline(create);
    const project = await p.db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", p.projectId)
      .executeTakeFirstOrThrow();
    orgId = Number(project.organization_id);
    const other = await p.db.kysely
      .insertInto("organizations")
      .values({ slug: "other", name: "Other", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    otherOrgId = Number(other.id);
    const auth = await createAuth(p.db);
    for (const name of Object.keys(users) as (keyof typeof users)[]) {
      const { id } = await createPasswordUser(auth, {
        email: `${name}@example.com`,
        name,
        password: "a long password 1",
      });
      users[name] = id;
      await accountsDb(p.db)
        .insertInto("members")
        .values({
          organization_id: name === "stranger" ? otherOrgId : orgId,
          user_id: id,
          role: name === "owner" ? "owner" : "member",
          created_at: Date.now(),
        })
        .execute();
    }
  });

  afterAll(async () => {
    await p?.close();
  });

  /** Sends events of one new code path (so one new issue) and returns that issue's id. */
  async function newIssue(): Promise<number> {
    const tag = `path${++path}`;
    await sendTo(tag, [{}]);
    const row = await p.db.kysely
      .selectFrom("issues")
      .select("id")
      .where("culprit", "like", `${tag}_%`)
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async function sendTo(tag: string, events: { release?: string; user?: string }[]) {
    const items = events.map((e) => {
      const event = variant(base, { path: tag, user: e.user });
      if (e.release) event.release = e.release;
      else delete event.release;
      return { type: "event", payload: event };
    });
    for (const item of items) await p.send(buildEnvelope([item]));
    await p.worker.drain();
  }

  const pathOf = async (issueId: number) => {
    const row = await issue(issueId);
    return String(row.culprit).split("_")[0] as string;
  };
  const issue = (id: number) =>
    p.db.kysely.selectFrom("issues").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const kinds = async (id: number) =>
    (await issueTimeline(p.db, { id, first_seen: 0 })).map((t) => t.kind);

  it("regresses a plainly resolved issue on its next event, naming the release", async () => {
    const id = await newIssue();
    await changeIssueStatus(p.db, orgId, id, users.member, { status: "resolved" });
    await sendTo(await pathOf(id), [{ release: "3.1.0" }]);
    const row = await issue(id);
    expect([row.status, row.substatus, row.status_details]).toEqual([
      "unresolved",
      "regressed",
      null,
    ]);
    const timeline = await issueTimeline(p.db, { id, first_seen: 0 });
    expect(timeline.map((t) => t.kind)).toEqual(["first_seen", "resolved", "regressed"]);
    expect(timeline[1]?.user?.email).toBe("member@example.com");
    expect(timeline[2]?.data).toEqual({ release: "3.1.0" });
    expect(timeline[2]?.userId).toBeNull();
  });

  it("resolved in the next release: the current release and older keep it, a later one reopens it", async () => {
    const id = await newIssue();
    const tag = await pathOf(id);
    await sendTo(tag, [{ release: "1.0.0" }, { release: "1.1.0" }]);
    const { details } = await changeIssueStatus(p.db, orgId, id, users.member, {
      status: "resolved",
      inRelease: { mode: "next" },
    });
    // 3.1.0 was first seen in the previous case, but 1.1.0 most recently: that is "latest".
    expect(details).toMatchObject({ kind: "resolved_in_release", mode: "next", release: "1.1.0" });
    await sendTo(tag, [{ release: "1.1.0" }, { release: "1.0.0" }, {}]);
    expect((await issue(id)).status).toBe("resolved");
    expect((await issue(id)).times_seen).toBe(6);
    await sendTo(tag, [{ release: "1.2.0" }]);
    const row = await issue(id);
    expect([row.status, row.substatus]).toEqual(["unresolved", "regressed"]);
    const last = (await issueTimeline(p.db, { id, first_seen: 0 })).at(-1);
    expect(last?.kind).toBe("regressed");
    expect(last?.data.release).toBe("1.2.0");
  });

  it("resolved in release X: earlier releases keep it, X itself reopens it", async () => {
    const id = await newIssue();
    const tag = await pathOf(id);
    await changeIssueStatus(p.db, orgId, id, users.member, {
      status: "resolved",
      inRelease: { mode: "release", release: "2.0.0" },
    });
    await sendTo(tag, [{ release: "1.9.9" }, { release: "2.0.0-rc.1" }]);
    expect((await issue(id)).status).toBe("resolved");
    await sendTo(tag, [{ release: "2.0.0" }]);
    expect((await issue(id)).substatus).toBe("regressed");
  });

  it("orders releases that are not versions by when they were first seen", async () => {
    const id = await newIssue();
    const tag = await pathOf(id);
    await sendTo(tag, [{ release: "aaaa111" }]);
    await new Promise((r) => setTimeout(r, 5));
    await sendTo(tag, [{ release: "bbbb222" }]);
    await changeIssueStatus(p.db, orgId, id, users.member, {
      status: "resolved",
      inRelease: { mode: "next" },
    });
    await sendTo(tag, [{ release: "aaaa111" }, { release: "bbbb222" }]);
    expect((await issue(id)).status).toBe("resolved");
    await sendTo(tag, [{ release: "cccc333" }]);
    expect((await issue(id)).substatus).toBe("regressed");
  });

  it("ignored until 3 more events comes back on the third, and says why", async () => {
    const id = await newIssue();
    const tag = await pathOf(id);
    await changeIssueStatus(p.db, orgId, id, users.member, {
      status: "ignored",
      until: { kind: "count", count: 3 },
    });
    expect(parseStatusDetails((await issue(id)).status_details)).toMatchObject({
      kind: "ignore_count",
      untilTimesSeen: 4,
    });
    await sendTo(tag, [{}, {}]);
    expect((await issue(id)).status).toBe("ignored");
    await sendTo(tag, [{}]);
    const row = await issue(id);
    expect([row.status, row.substatus, row.status_details]).toEqual(["unresolved", null, null]);
    const last = (await issueTimeline(p.db, { id, first_seen: 0 })).at(-1);
    expect(last).toMatchObject({
      kind: "unresolved",
      userId: null,
      data: { reason: "ignore_count", count: 3 },
    });
  });

  it("ignored until 2 more users counts distinct users, not events", async () => {
    const id = await newIssue();
    const tag = await pathOf(id);
    await sendTo(tag, [{ user: "u1" }]);
    await changeIssueStatus(p.db, orgId, id, users.member, {
      status: "ignored",
      until: { kind: "users", count: 2 },
    });
    await sendTo(tag, [{ user: "u1" }, { user: "u2" }, { user: "u2" }]);
    expect((await issue(id)).status).toBe("ignored");
    await sendTo(tag, [{ user: "u3" }]);
    expect((await issue(id)).status).toBe("unresolved");
    expect((await issueTimeline(p.db, { id, first_seen: 0 })).at(-1)?.data).toEqual({
      reason: "ignore_users",
      count: 2,
    });
  });

  it("ignored for a while: an event before the time keeps it, one after brings it back", async () => {
    const id = await newIssue();
    const tag = await pathOf(id);
    await changeIssueStatus(p.db, orgId, id, users.member, {
      status: "ignored",
      until: { kind: "duration", minutes: 60 },
    });
    await sendTo(tag, [{}]);
    expect((await issue(id)).status).toBe("ignored");
    // As if the hour had passed: the stored time is moved back.
    await changeIssueStatus(
      p.db,
      orgId,
      id,
      users.member,
      { status: "ignored", until: { kind: "duration", minutes: 60 } },
      Date.now() - 61 * 60_000,
    );
    await sendTo(tag, [{}]);
    expect((await issue(id)).status).toBe("unresolved");
    expect((await issueTimeline(p.db, { id, first_seen: 0 })).at(-1)?.data.reason).toBe(
      "ignore_until",
    );
  });

  it("ignored for a while comes back when the time is up, without an event", async () => {
    const id = await newIssue();
    const keep = await newIssue();
    await changeIssueStatus(p.db, orgId, keep, users.member, {
      status: "ignored",
      until: { kind: "duration", minutes: 60 },
    });
    await changeIssueStatus(
      p.db,
      orgId,
      id,
      users.member,
      { status: "ignored", until: { kind: "duration", minutes: 30 } },
      Date.now() - 31 * 60_000,
    );
    expect(await unignoreExpired(p.db)).toBe(1);
    expect((await issue(id)).status).toBe("unresolved");
    expect((await issue(keep)).status).toBe("ignored");
    expect((await issueTimeline(p.db, { id, first_seen: 0 })).at(-1)?.data.reason).toBe(
      "ignore_until",
    );
    expect(await unignoreExpired(p.db)).toBe(0);
  });

  it("ignored forever stays ignored", async () => {
    const id = await newIssue();
    await changeIssueStatus(p.db, orgId, id, users.member, { status: "ignored" });
    await sendTo(await pathOf(id), [{}, {}, {}]);
    expect((await issue(id)).status).toBe("ignored");
    expect(await kinds(id)).toEqual(["first_seen", "ignored"]);
  });

  it("assigns to members only; someone outside the organization changes nothing", async () => {
    const id = await newIssue();
    const assigned = await assignIssue(p.db, orgId, id, users.owner, "MEMBER@example.com");
    expect(assigned).toMatchObject({ changed: true, assignee: { id: users.member } });
    expect((await issue(id)).assignee_user_id).toBe(users.member);
    await expect(assignIssue(p.db, orgId, id, users.owner, "stranger@example.com")).rejects.toThrow(
      "stranger@example.com is not a member of this organization",
    );
    await expect(assignIssue(p.db, orgId, id, users.owner, users.stranger)).rejects.toThrow(
      "is not a member",
    );
    await expect(assignIssue(p.db, orgId, id, users.owner, "nobody@example.com")).rejects.toThrow();
    expect((await issue(id)).assignee_user_id).toBe(users.member);
    // Again to the same member: nothing to write.
    expect((await assignIssue(p.db, orgId, id, users.owner, users.member)).changed).toBe(false);
    await assignIssue(p.db, orgId, id, users.owner, null);
    expect((await issue(id)).assignee_user_id).toBeNull();
    expect(await kinds(id)).toEqual(["first_seen", "assigned", "unassigned"]);
    // Another organization's issue is not found, whoever is named.
    await expect(assignIssue(p.db, otherOrgId, id, users.stranger, users.stranger)).rejects.toThrow(
      "issue not found",
    );
  });

  it("comments: the author edits and deletes, an admin deletes, another member does neither", async () => {
    const id = await newIssue();
    const member = { userId: users.member, mayDeleteAny: false };
    const other = { userId: users.other, mayDeleteAny: false };
    const owner = { userId: users.owner, mayDeleteAny: true };
    const { id: c1 } = await addComment(p.db, orgId, id, member, "  first **take**  ");
    const { id: c2 } = await addComment(p.db, orgId, id, member, "second");
    await expect(addComment(p.db, orgId, id, member, "   ")).rejects.toThrow("Write something");
    await expect(addComment(p.db, otherOrgId, id, member, "x")).rejects.toThrow("issue not found");
    await expect(editComment(p.db, orgId, id, c1, other, "hijack")).rejects.toThrow(
      "only its author",
    );
    await expect(editComment(p.db, orgId, id, c1, owner, "hijack")).rejects.toThrow(
      "only its author",
    );
    await editComment(p.db, orgId, id, c1, member, "first, edited");
    await expect(deleteComment(p.db, orgId, id, c1, other)).rejects.toThrow(
      "only its author or an admin",
    );
    await deleteComment(p.db, orgId, id, c2, owner);
    await expect(deleteComment(p.db, orgId, id + 1000, c1, member)).rejects.toThrow(
      "comment not found",
    );
    const timeline = await issueTimeline(p.db, { id, first_seen: 0 });
    const comments = timeline.filter((t) => t.kind === "comment");
    expect(comments.map((c) => c.data.text)).toEqual(["first, edited"]);
    expect(comments[0]?.updatedAt).not.toBeNull();
    await deleteComment(p.db, orgId, id, c1, member);
    expect(await kinds(id)).toEqual(["first_seen"]);
  });
});
