import type { ParsedMail } from "mailparser";
import { simpleParser } from "mailparser";
import type { Browser, Page } from "playwright-core";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsDb } from "../../src/auth/tables";
import { openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client, type HttpResult } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { API_TOKEN, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * Issue 23 part B in Chromium against the production build, with a real SMTP server taking
 * Faultline's mail: assigning (the assignee is emailed) and commenting, Markdown with
 * `<script>` and `javascript:` rendered inert, an invitation emailed and accepted by a new
 * person in a second browser, and the permission matrix of every new action.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const A = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  invite: actionId("app/[org]/settings/members/actions.ts", "invite"),
  revokeInvitation: actionId("app/[org]/settings/members/actions.ts", "revokeInvitation"),
  transferOwnership: actionId("app/[org]/settings/members/actions.ts", "transferOwnership"),
  leaveOrganization: actionId("app/[org]/settings/members/actions.ts", "leaveOrganization"),
  assign: actionId("app/[org]/issues/[id]/team-actions.ts", "assign"),
  addComment: actionId("app/[org]/issues/[id]/team-actions.ts", "addComment"),
  editComment: actionId("app/[org]/issues/[id]/team-actions.ts", "editComment"),
  deleteComment: actionId("app/[org]/issues/[id]/team-actions.ts", "deleteComment"),
  resolveIssue: actionId("app/[org]/issues/[id]/actions.ts", "resolveIssue"),
  ignoreIssue: actionId("app/[org]/issues/[id]/actions.ts", "ignoreIssue"),
  saveSso: actionId("app/[org]/settings/sso/actions.ts", "saveSso"),
  removeSso: actionId("app/[org]/settings/sso/actions.ts", "removeSso"),
};

let server: RunningServer;
let browser: Browser;
let smtp: SMTPServer;
const mail: ParsedMail[] = [];
let owner: Client;
let issueId: number;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((parsed) => {
          mail.push(parsed);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtp.server.address() as { port: number }).port;
  [server, browser] = await Promise.all([
    startServer({
      env: {
        FAULTLINE_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        FAULTLINE_EMAIL_FROM: "Faultline <faultline@example.com>",
      },
    }),
    launchBrowser(),
  ]);
  owner = new Client(server.url);
  const done = await owner.action("/setup", A.setUp, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
  const dsn = new URL(server.dsn);
  const event = variant(realNodeErrorEvent(), { value: "checkout total was negative" });
  const res = await fetch(`${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`, {
    method: "POST",
    body: new Uint8Array(
      buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
    ),
  });
  expect(res.status).toBe(200);
  const issues = await waitFor(async () => {
    const list = (await server.api<{ id: string }[]>("/api/0/projects/acme/default/issues/")).body;
    return list.length > 0 && list;
  });
  issueId = Number(issues[0]?.id);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

/** Adds a member with a temporary password and returns them signed in. */
async function member(email: string, role: string): Promise<Client> {
  const added = await owner.action(
    "/acme/settings/members",
    A.addMember,
    { org: "acme", email, role },
    { withState: true },
  );
  const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
  if (!password) throw new Error(`no temporary password: ${added.body.slice(0, 300)}`);
  const client = new Client(server.url);
  const signedIn = await client.action("/sign-in", A.signIn, { email, password });
  expect(signedIn.headers.get("x-action-redirect")).toMatch(/^\/acme/);
  return client;
}

async function signedIn(page: Page, client: Client): Promise<void> {
  await page
    .context()
    .addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: server.url })));
}

function mailTo(address: string, subject: RegExp): Promise<ParsedMail> {
  return waitFor(
    () =>
      mail.find(
        (m) => m.to && JSON.stringify(m.to).includes(address) && subject.test(m.subject ?? ""),
      ),
    15_000,
    `mail to ${address}`,
  );
}

describe("assignment, comments and the timeline", () => {
  let mia: Client;

  beforeAll(async () => {
    mia = await member("mia@example.com", "member");
  });

  it("assigns the issue to a member, who is emailed, and shows it in the timeline", async () => {
    await withPage(browser, "team-assign", async (page) => {
      await signedIn(page, owner);
      await page.goto(`${server.url}/acme/issues/${issueId}`);
      expect(await page.getByTestId("assignee").textContent()).toBe("Nobody");
      await page.getByLabel("Assign to").selectOption({ label: "mia" });
      await page.getByRole("button", { name: "Assign" }).click();
      await page.getByRole("status").filter({ hasText: "Assigned to mia." }).waitFor();
      await page.getByTestId("assignee").filter({ hasText: "mia" }).waitFor();
      const activity = page.getByRole("list", { name: "Activity" });
      await activity.getByText("assigned it to mia@example.com").waitFor();
      expect(await activity.locator("li").first().textContent()).toContain("First seen");
      await screenshot(page, "team-assigned");
    });
    const message = await mailTo("mia@example.com", /^Assigned to you: /);
    expect(message.subject).toContain("checkout total was negative");
    expect(message.text).toContain(`/acme/issues/${issueId}`);
    expect(message.text).toContain("Olive Owner assigned an issue to you");
  });

  it("offers an 'Assigned to me' tab on the issue list", async () => {
    const list = await owner.get("/acme/issues");
    expect(list.body).toContain(
      `href="/acme/issues?query=${encodeURIComponent("is:unresolved assigned:me")}"`,
    );
    expect(list.body).toContain(">Assigned to me<");
  });

  it("refuses an assignee outside the organization and changes nothing", async () => {
    const res = await owner.action(
      `/acme/issues/${issueId}`,
      A.assign,
      { org: "acme", issueId: String(issueId), assignee: "someone@elsewhere.example" },
      { withState: true },
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain("someone@elsewhere.example is not a member of this organization");
    const page = await owner.get(`/acme/issues/${issueId}`);
    expect(page.body).toMatch(/data-testid="assignee"[^>]*>mia</);
  });

  it("renders a comment's Markdown, with <script> and javascript: links inert", async () => {
    await withPage(browser, "team-comment", async (page) => {
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await signedIn(page, owner);
      await page.goto(`${server.url}/acme/issues/${issueId}`);
      const text = [
        "Looks like **the tax rounding** again, see [the runbook](https://example.com/runbook).",
        "",
        "<script>window.__xss = 1; alert('script')</script>",
        "",
        '[click me](javascript:alert("link")) <img src=x onerror="window.__xss = 2">',
        "",
        "- first\n- second",
      ].join("\n");
      await page.getByLabel("Add a comment (Markdown)").fill(text);
      await page.getByRole("button", { name: "Comment", exact: true }).click();
      const comment = page.getByRole("article", { name: "Comment by You" });
      await comment.waitFor();
      await comment.locator("strong", { hasText: "the tax rounding" }).waitFor();
      expect(await comment.getByRole("link", { name: "the runbook" }).getAttribute("href")).toBe(
        "https://example.com/runbook",
      );
      expect(await comment.locator("li").count()).toBe(2);
      // Everything dangerous is visible text, nothing else.
      await comment.getByText("<script>window.__xss = 1; alert('script')</script>").waitFor();
      await comment.getByText('[click me](javascript:alert("link"))', { exact: false }).waitFor();
      expect(await comment.locator("script, img, iframe").count()).toBe(0);
      expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
      expect(
        await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
      ).toBeUndefined();
      expect(dialogs).toEqual([]);
      // The textarea is cleared for the next comment.
      expect(await page.getByLabel("Add a comment (Markdown)").inputValue()).toBe("");
      await screenshot(page, "team-comment");

      await comment.getByRole("button", { name: "Edit" }).click();
      await page.getByLabel("Edit comment").fill("Looks like **the tax rounding**, fixed in #42.");
      await page.getByRole("button", { name: "Save" }).click();
      await comment.getByText("(edited)").waitFor();
      await comment.getByText("fixed in #42.").waitFor();
    });
  });

  it("lets a member comment and delete their own comment, but not touch another's", async () => {
    await withPage(browser, "team-member-comment", async (page) => {
      await signedIn(page, mia);
      await page.goto(`${server.url}/acme/issues/${issueId}`);
      const olives = page.getByRole("article", { name: "Comment by Olive Owner" });
      await olives.waitFor();
      expect(await olives.getByRole("button").count()).toBe(0);
      await page.getByLabel("Add a comment (Markdown)").fill("On it.");
      await page.getByRole("button", { name: "Comment", exact: true }).click();
      const mine = page.getByRole("article", { name: "Comment by You" });
      await mine.getByText("On it.").waitFor();
      await mine.getByRole("button", { name: "Delete comment" }).click();
      await mine.waitFor({ state: "detached" });
    });
  });

  it("resolves in the next release and ignores until more events from the page", async () => {
    await withPage(browser, "team-status", async (page) => {
      await signedIn(page, owner);
      await page.goto(`${server.url}/acme/issues/${issueId}`);
      await page.getByText("Ignore until…").click();
      await page.getByLabel("Number of more events").fill("25");
      await page.getByRole("button", { name: "Ignore until then" }).click();
      await page
        .getByTestId("status-condition")
        .filter({ hasText: "Ignored until 25 more events." })
        .waitFor();
      await page
        .getByRole("list", { name: "Activity" })
        .getByText("ignored it until 25 more events")
        .waitFor();
      await page.getByRole("button", { name: "Unresolve" }).click();
      await page.getByText("Resolve in…").click();
      await page.getByRole("button", { name: "Resolve in release" }).click();
      await page
        .getByTestId("status-condition")
        .filter({ hasText: /Resolved in the (next release|release after)/ })
        .waitFor();
      await screenshot(page, "team-status");
    });
  });
});

describe("invitations", () => {
  it("emails an invitation that a new person accepts in a second browser, once", async () => {
    let link = "";
    await withPage(browser, "invite-send", async (page) => {
      await signedIn(page, owner);
      await page.goto(`${server.url}/acme/settings/members`);
      await page.locator("#invite-email").fill("newbie@example.com");
      await page.locator("#invite-role").selectOption("member");
      await page.getByRole("button", { name: "Send invitation" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: "Invitation emailed to newbie@example.com." })
        .waitFor();
      await page
        .getByRole("table", { name: "Pending invitations" })
        .getByText("newbie@example.com")
        .waitFor();
      await screenshot(page, "invite-pending");
    });
    const message = await mailTo("newbie@example.com", /^Join Acme Inc on Faultline$/);
    link = /(http:\/\/\S+\/invite\/[A-Za-z0-9_-]{43})/.exec(message.text ?? "")?.[1] ?? "";
    expect(link).not.toBe("");

    await withPage(browser, "invite-accept", async (page) => {
      await page.goto(link);
      await page.getByRole("heading", { name: "Create your account" }).waitFor();
      await page.getByText("newbie@example.com").waitFor();
      await page.getByLabel("Your name").fill("Newbie");
      await page.getByLabel("Password").fill("a new password 1");
      await page.getByRole("button", { name: "Create account and join" }).click();
      await page.waitForURL(`${server.url}/acme/issues`);
      await page.getByText("newbie@example.com (member)").waitFor();
      await screenshot(page, "invite-accepted");
    });
    await withPage(browser, "invite-reused", async (page) => {
      await page.goto(link);
      await page.getByRole("alert").filter({ hasText: "already been used" }).waitFor();
    });
    const members = await owner.get("/acme/settings/members");
    expect(members.body).toContain("newbie@example.com");
    const pending =
      /aria-label="Pending invitations"[\s\S]*?<\/table>/.exec(members.body)?.[0] ?? "";
    expect(pending).not.toContain("newbie@example.com");
  });

  it("refuses an expired invitation and a revoked one", async () => {
    const expired = await inviteLink("late@example.com");
    const db = openDb(`file:${server.dataDir}/faultline.db`);
    try {
      await db.kysely
        .updateTable("invitations")
        .set({ expires_at: Date.now() - 1000 })
        .where("email", "=", "late@example.com")
        .execute();
    } finally {
      await db.close();
    }
    const visitor = new Client(server.url);
    expect((await visitor.get(new URL(expired).pathname)).body).toContain(
      "This invitation has expired",
    );

    const revoked = await inviteLink("gone@example.com");
    const page = await owner.get("/acme/settings/members");
    const id = /gone@example.com[\s\S]*?name="invitationId" value="(\d+)"/.exec(page.body)?.[1];
    expect(id).toBeDefined();
    const res = await owner.action(
      "/acme/settings/members",
      A.revokeInvitation,
      { org: "acme", invitationId: id as string },
      { withState: true },
    );
    expect(res.body).toContain("Invitation revoked.");
    expect((await visitor.get(new URL(revoked).pathname)).body).toContain(
      "This invitation was withdrawn",
    );
  });
});

async function inviteLink(email: string): Promise<string> {
  await owner.action(
    "/acme/settings/members",
    A.invite,
    { org: "acme", email, role: "viewer" },
    { withState: true },
  );
  const message = await mailTo(email, /^Join /);
  return /(http:\/\/\S+\/invite\/[A-Za-z0-9_-]{43})/.exec(message.text ?? "")?.[1] ?? "";
}

describe("the permission matrix of the new actions", () => {
  type Who = "owner" | "admin" | "member" | "viewer" | "outsider";
  const clients = {} as Record<Who, Client>;
  let commentByMember = 0;

  beforeAll(async () => {
    clients.owner = owner;
    clients.admin = await member("adam@example.com", "admin");
    clients.member = await member("max@example.com", "member");
    clients.viewer = await member("vic@example.com", "viewer");
    // Someone of another organization: signed in, not a member of acme.
    const db = openDb(`file:${server.dataDir}/faultline.db`);
    clients.outsider = await member("otto@example.com", "member");
    try {
      const org = await db.kysely
        .insertInto("organizations")
        .values({ slug: "globex", name: "Globex", created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow();
      const otto = await accountsDb(db)
        .selectFrom("user")
        .select("id")
        .where("email", "=", "otto@example.com")
        .executeTakeFirstOrThrow();
      await accountsDb(db)
        .updateTable("members")
        .set({ organization_id: Number(org.id) })
        .where("user_id", "=", otto.id)
        .execute();
    } finally {
      await db.close();
    }
  });

  const call = (
    who: Who,
    action: string,
    fields: Record<string, string>,
    path = `/acme/issues/${issueId}`,
  ) => clients[who].action(path, action, { org: "acme", ...fields }, { withState: true });
  const outcome = (res: HttpResult) =>
    res.status !== 200 ? res.status : /"ok":true/.test(res.body) ? "ok" : "refused";

  it("triage: assign, comment, resolve or ignore with a condition — members and up", async () => {
    const id = String(issueId);
    const cases: [string, Record<string, string>][] = [
      [A.assign, { issueId: id, assignee: "" }],
      [A.addComment, { issueId: id, text: "matrix" }],
      [A.resolveIssue, { issueId: id, resolution: "next" }],
      [A.ignoreIssue, { issueId: id, until: "count", count: "10" }],
    ];
    for (const [action, fields] of cases) {
      const got = {} as Record<Who, unknown>;
      for (const who of ["owner", "admin", "member", "viewer", "outsider"] as Who[])
        got[who] = outcome(await call(who, action, fields));
      expect(got, action).toEqual({
        owner: "ok",
        admin: "ok",
        member: "ok",
        viewer: 403,
        outsider: 404,
      });
    }
    const added = await call("member", A.addComment, { issueId: id, text: "the member's" });
    expect(outcome(added)).toBe("ok");
    const html = (await owner.get(`/acme/issues/${issueId}`)).body;
    commentByMember = Number(
      /the member&#x27;s|the member’s|the member's/.test(html) ? lastCommentId(html) : 0,
    );
    expect(commentByMember).toBeGreaterThan(0);
  });

  it("comments: only the author edits; the author or an admin deletes", async () => {
    const fields = { issueId: String(issueId), commentId: String(commentByMember) };
    const edit = {} as Record<Who, unknown>;
    for (const who of ["owner", "admin", "viewer", "outsider", "member"] as Who[])
      edit[who] = outcome(await call(who, A.editComment, { ...fields, text: `edited by ${who}` }));
    expect(edit).toEqual({ owner: 403, admin: 403, viewer: 403, outsider: 404, member: "ok" });
    const del = {} as Record<Who, unknown>;
    for (const who of ["viewer", "outsider", "admin"] as Who[])
      del[who] = outcome(await call(who, A.deleteComment, fields));
    expect(del).toEqual({ viewer: 403, outsider: 404, admin: "ok" });
    // Gone now: even its author finds nothing to delete.
    expect(outcome(await call("member", A.deleteComment, fields))).toBe(404);
  });

  it("members: invite and revoke for admins and owners; only owners invite owners or transfer", async () => {
    const path = "/acme/settings/members";
    const invite = {} as Record<Who, unknown>;
    for (const who of ["owner", "admin", "member", "viewer", "outsider"] as Who[])
      invite[who] = outcome(
        await call(who, A.invite, { email: `${who}-invitee@example.com`, role: "member" }, path),
      );
    expect(invite).toEqual({ owner: "ok", admin: "ok", member: 403, viewer: 403, outsider: 404 });
    expect(
      outcome(await call("admin", A.invite, { email: "boss@example.com", role: "owner" }, path)),
    ).toBe(403);
    const revoke = {} as Record<Who, unknown>;
    for (const who of ["member", "viewer", "outsider"] as Who[])
      revoke[who] = outcome(await call(who, A.revokeInvitation, { invitationId: "1" }, path));
    expect(revoke).toEqual({ member: 403, viewer: 403, outsider: 404 });
    const adamId = /value="([^"]+)">adam@example.com/.exec((await owner.get(path)).body)?.[1] ?? "";
    const transfer = {} as Record<Who, unknown>;
    for (const who of ["admin", "member", "viewer", "outsider"] as Who[])
      transfer[who] = outcome(await call(who, A.transferOwnership, { userId: adamId }, path));
    expect(transfer).toEqual({ admin: 403, member: 403, viewer: 403, outsider: 404 });
  });

  it("single sign-on settings: owners only", async () => {
    const path = "/acme/settings/sso";
    const fields = {
      issuer: "https://login.invalid",
      clientId: "x",
      clientSecret: "y",
      allowedDomains: "example.com",
      defaultRole: "member",
    };
    const save = {} as Record<Who, unknown>;
    for (const who of ["owner", "admin", "member", "viewer", "outsider"] as Who[])
      save[who] = outcome(await call(who, A.saveSso, fields, path));
    // The owner may: the answer is the issuer's problem, not a refusal of the owner.
    expect(save).toEqual({ owner: "refused", admin: 403, member: 403, viewer: 403, outsider: 404 });
    expect((await call("owner", A.saveSso, fields, path)).body).toContain("Single sign-on:");
    for (const who of ["admin", "viewer"] as Who[])
      expect((await clients[who].get(path)).status).toBe(403);
    expect((await clients.outsider.get(path)).status).toBe(404);
    expect(outcome(await call("member", A.removeSso, {}, path))).toBe(403);
  });

  it("the REST API: activities and comments in Sentry's shapes, with the same rules", async () => {
    const api = async (who: Who | "operator", method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (who === "operator") headers.authorization = `Bearer ${API_TOKEN}`;
      else {
        headers.cookie = [...clients[who].cookies].map(([k, v]) => `${k}=${v}`).join("; ");
        headers.origin = server.url;
      }
      const res = await fetch(`${server.url}/api/0/issues/${issueId}/${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const activity = await api("viewer", "GET", "activities/");
    expect(activity.status).toBe(200);
    const types = (activity.body.activity as { type: string }[]).map((a) => a.type);
    expect(types).toEqual(
      expect.arrayContaining(["note", "assigned", "set_ignored", "first_seen"]),
    );
    expect(types.at(-1)).toBe("first_seen");
    expect((await api("outsider", "GET", "activities/")).status).toBe(404);

    const posted = await api("member", "POST", "comments/", { text: "via the **API**" });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      type: "note",
      data: { text: "via the **API**" },
      user: { email: "max@example.com" },
    });
    const noteId = posted.body.id as string;
    expect((await api("viewer", "POST", "comments/", { text: "no" })).status).toBe(403);
    expect((await api("outsider", "POST", "comments/", { text: "no" })).status).toBe(404);
    expect((await api("member", "POST", "comments/", { text: "   " })).body.detail).toBe(
      "Write something first",
    );
    expect((await api("operator", "POST", "comments/", { text: "x" })).body.detail).toContain(
      "written by a user",
    );
    expect((await api("admin", "PUT", `comments/${noteId}/`, { text: "taken over" })).status).toBe(
      403,
    );
    const edited = await api("member", "PUT", `comments/${noteId}/`, {
      text: "edited via the API",
    });
    expect(edited.body).toMatchObject({ data: { text: "edited via the API" } });
    expect(edited.body.dateUpdated).toBeDefined();
    const listed = await api("operator", "GET", "comments/");
    expect((listed.body as { id: string }[]).map((c) => c.id)).toContain(noteId);
    expect((await api("admin", "DELETE", `comments/${noteId}/`)).status).toBe(204);
    expect((await api("member", "DELETE", `comments/${noteId}/`)).status).toBe(404);
  });

  it("leave: any member may; an outsider cannot; the last owner may not", async () => {
    const path = "/acme/settings/members";
    expect(outcome(await call("outsider", A.leaveOrganization, {}, path))).toBe(404);
    const leaving = await call("viewer", A.leaveOrganization, {}, path);
    expect(actionRedirect(leaving)).toBe("/");
    expect((await clients.viewer.get("/acme/issues")).status).toBe(404);
    const last = await call("owner", A.leaveOrganization, {}, path);
    expect(last.body).toContain("at least one owner");
  });

  it("transfer: the owner hands over and stays on as admin", async () => {
    const path = "/acme/settings/members";
    const adamId = /value="([^"]+)">adam@example.com/.exec((await owner.get(path)).body)?.[1] ?? "";
    const res = await call("owner", A.transferOwnership, { userId: adamId }, path);
    expect(res.body).toContain("Ownership transferred");
    // React separates text parts with comments in server HTML.
    const text = async (client: Client) => (await client.get(path)).body.replaceAll("<!-- -->", "");
    expect(await text(clients.admin)).toContain("adam@example.com (owner)");
    expect(await text(owner)).toContain("olive@example.com (admin)");
  });
});

/** The id of the newest comment on the page (from its delete form). */
function lastCommentId(html: string): number {
  const ids = [...html.matchAll(/name="commentId" value="(\d+)"/g)].map((m) => Number(m[1]));
  return Math.max(0, ...ids);
}
