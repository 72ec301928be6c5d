import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { can, ROLES, type Role } from "../../src/auth/permissions";
import { accountsDb } from "../../src/auth/tables";
import { openDb } from "../../src/db/connection";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { insertOtherOrg } from "../helpers/other-org";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";
import { actionId, actionRedirect, Client, type HttpResult } from "./http-client";
import {
  type ActionCase,
  type Objects,
  type Pairs,
  pageUrl,
  SERVER_ACTIONS,
  serverActionsInBuild,
  serverActionsInSource,
} from "./server-actions";

/**
 * Form tampering against every server action, over HTTP against the production build, driven
 * by the table in server-actions.ts: for each role that may not perform an action, its form
 * as the page sends it, with its fields reordered, duplicated, and carrying a stronger
 * action's values; for the weakest role that may, the form with a stronger or another
 * organization's value added beside the real one (either order); for an owner, the form
 * naming another organization's objects. Each is refused and changes nothing in the database.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
/** Tables that change without any action: the audit log (refusals are written there), rate
 * limits, the ingest queue and its bookkeeping, and the traces of the app's own requests
 * (self-monitoring stores them as they come). */
const VOLATILE = new Set([
  "audit_log",
  "auth_rate_limits",
  "ingest_queue",
  "worker_state",
  "outcomes",
  "spans",
  "trace_summaries",
  "transaction_rollups",
  "transaction_op_rollups",
]);

let server: RunningServer;
let dbFile: string;
const as = {} as Record<Role, Client>;
let anonymous: Client;
let gus: Client;
let acme: Objects;
let globex: Objects;
const build = new Map<string, { id: string; page: string }>();
const sourceActions = serverActionsInSource();

function sqlite() {
  return new Database(dbFile, { readonly: true, fileMustExist: true });
}

function snapshot(): Map<string, string> {
  const db = sqlite();
  try {
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as { name: string }[]
    )
      .map((r) => r.name)
      .filter((n) => !VOLATILE.has(n));
    const out = new Map<string, string>();
    for (const t of tables) {
      const rows = db.prepare(`SELECT * FROM "${t}"`).raw().all();
      out.set(t, createHash("sha256").update(JSON.stringify(rows)).digest("hex"));
    }
    return out;
  } finally {
    db.close();
  }
}

function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after].filter(([t, h]) => before.get(t) !== h).map(([t]) => t);
}

function one<T>(sql: string, ...params: unknown[]): T {
  const db = sqlite();
  try {
    return db.prepare(sql).get(...params) as T;
  } finally {
    db.close();
  }
}

function lastAuditId(): number {
  return one<{ id: number | null }>("SELECT max(id) AS id FROM audit_log").id ?? 0;
}

function refusalsSince(id: number): { target: string; details: string }[] {
  const db = sqlite();
  try {
    return db
      .prepare("SELECT target, details FROM audit_log WHERE id > ? AND action = 'form.refused'")
      .all(id) as { target: string; details: string }[];
  } finally {
    db.close();
  }
}

const nameOf = (key: string) => key.split("#")[1] as string;
const withState = (key: string) => {
  const [file, name] = key.split("#") as [string, string];
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  return new RegExp(`function ${name}\\(\\s*_?prev`).test(text);
};

async function submit(client: Client, key: string, o: Objects, pairs: Pairs): Promise<HttpResult> {
  const entry = build.get(key);
  if (!entry) throw new Error(`${key} is not in the build`);
  return client.action(pageUrl(entry.page, o), entry.id, pairs, { withState: withState(key) });
}

/** What a form refused looks like: an access error, a message, or a redirect naming one. */
function refusedAnswer(res: HttpResult): boolean {
  if ([401, 403, 404].includes(res.status)) return true;
  if (res.status === 200 && /"ok":false/.test(res.body)) return true;
  return /error=|invalid|not_found/.test(actionRedirect(res) ?? "");
}

/**
 * Submits `pairs` and checks nothing changed. `refusal` says how it must be refused: with
 * the role's 403, or with an answer or audit entry that says so.
 */
async function attack(
  what: string,
  client: Client,
  key: string,
  pairs: Pairs,
  refusal: "forbidden" | "audited" | "answer" | "unchanged",
): Promise<void> {
  const before = snapshot();
  const auditFrom = lastAuditId();
  const res = await submit(client, key, acme, pairs);
  const label = `${what}: ${JSON.stringify(pairs)} → ${res.status} ${actionRedirect(res) ?? ""} ${res.body.slice(-200)}`;
  expect(changedTables(before, snapshot()), label).toEqual([]);
  if (refusal === "forbidden") expect(res.status, label).toBe(403);
  else if (refusal === "audited") {
    // Refused and written down; or refused by the role (a stronger value in a field the form
    // did not have), or, when the tampered `org` came first, not a member there.
    if (res.status === 403 || res.status === 404) return;
    const refused = refusalsSince(auditFrom);
    expect(refused.length, label).toBeGreaterThan(0);
    expect(refused[0]?.target, label).toBe(nameOf(key));
  } else if (refusal === "answer") expect(refusedAnswer(res), label).toBe(true);
}

/** `pairs` with the field `name` also sent as `value`, after or before the real one. */
function doubled(pairs: Pairs, extra: Pairs, first: boolean): Pairs {
  return first ? [...extra, ...pairs] : [...pairs, ...extra];
}

/** The pairs of `stronger` that differ from `pairs` (the values a tamperer adds). */
function differing(pairs: Pairs, stronger: Pairs): Pairs {
  return stronger.filter(([k, v]) => !pairs.some(([k2, v2]) => k2 === k && v2 === v));
}

async function post(dsn: string, items: { type: string; payload: unknown }[]): Promise<void> {
  const url = new URL(dsn);
  const res = await fetch(`${server.url}/api${url.pathname}/envelope/?sentry_key=${url.username}`, {
    method: "POST",
    body: new Uint8Array(buildEnvelope(items, { sent_at: new Date().toISOString() })),
  });
  expect(res.status).toBe(200);
}

/** Objects of every kind in `org`, made the way people make them (actions, SDK envelopes). */
async function populate(
  org: string,
  projectId: number,
  dsn: string,
  owner: Client,
  personal: Client,
): Promise<Objects> {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  const now = Date.now() / 1000;
  await post(dsn, [
    { type: "event", payload: variant(realNodeErrorEvent(), { value: `tamper ${org}` }) },
    {
      type: "feedback",
      payload: {
        event_id: newEventId(),
        type: "feedback",
        timestamp: now,
        contexts: { feedback: { message: `feedback of ${org}`, contact_email: "f@example.com" } },
      },
    },
    {
      type: "check_in",
      payload: { check_in_id: newEventId(), monitor_slug: `${org}-nightly`, status: "ok" },
    },
    {
      type: "transaction",
      payload: {
        event_id: newEventId(),
        type: "transaction",
        transaction: `GET /${org}`,
        platform: "node",
        start_timestamp: now - 1,
        timestamp: now,
        contexts: { trace: { trace_id: traceId, span_id: spanId, op: "http.server" } },
        spans: [],
      },
    },
  ]);
  const issue = await waitFor(
    () =>
      one<{ id: number } | undefined>(
        "SELECT id FROM issues WHERE project_id = ? ORDER BY id LIMIT 1",
        projectId,
      )?.id,
    60_000,
    `an issue in ${org}`,
  );
  const feedback = await waitFor(
    () =>
      one<{ id: number } | undefined>("SELECT id FROM feedback WHERE project_id = ?", projectId)
        ?.id,
    60_000,
    `feedback in ${org}`,
  );
  await waitFor(
    () =>
      one<{ id: number } | undefined>("SELECT id FROM monitors WHERE project_id = ?", projectId),
    60_000,
    `a monitor in ${org}`,
  );
  await waitFor(
    () => one<{ id: number } | undefined>("SELECT id FROM spans WHERE span_id = ?", spanId),
    60_000,
    `a span in ${org}`,
  );
  const ok = (res: HttpResult, what: string) => {
    expect(res.status, `${what}: ${res.body.slice(-300)}`).toBe(200);
    expect(res.body, what).toContain('"ok":true');
  };
  const id = (key: string) => build.get(key)?.id as string;
  ok(
    await owner.action(
      `/${org}/issues/${issue}`,
      id("app/[org]/issues/[id]/team-actions.ts#addComment"),
      { org, issueId: String(issue), text: `comment in ${org}` },
      { withState: true },
    ),
    "comment",
  );
  ok(
    await owner.action(
      `/${org}/settings/members`,
      id("app/[org]/settings/members/actions.ts#invite"),
      { org, email: `invitee-${org}@example.com`, role: "member" },
      { withState: true },
    ),
    "invitation",
  );
  ok(
    await owner.action(
      `/${org}/settings/auth-tokens`,
      id("app/[org]/settings/auth-tokens/actions.ts#createOrgTokenAction"),
      { org, name: `${org}-ci` },
      { withState: true },
    ),
    "org token",
  );
  ok(
    await owner.action(
      `/${org}/issues`,
      id("app/[org]/issues/actions.ts#saveSearch"),
      { org, name: `${org} shared`, query: "is:unresolved", shared: "on" },
      { withState: true },
    ),
    "saved search",
  );
  ok(
    await personal.action(
      "/account/api-tokens",
      id("app/(auth)/account/api-tokens/actions.ts#createPersonalTokenAction"),
      { name: `${org}-personal`, scopes: "org:read" },
      { withState: true },
    ),
    "personal token",
  );
  const idOf = (sql: string, ...params: unknown[]) =>
    Number(one<{ id: number }>(sql, ...params).id);
  const userId = (email: string) =>
    one<{ id: string }>('SELECT id FROM "user" WHERE email = ?', email).id;
  const projectSlug = one<{ slug: string }>("SELECT slug FROM projects WHERE id = ?", projectId);
  return {
    org,
    project: projectSlug.slug,
    projectId,
    key: one<{ public_key: string }>(
      "SELECT public_key FROM project_keys WHERE project_id = ?",
      projectId,
    ).public_key,
    issue: Number(issue),
    comment: idOf("SELECT id FROM issue_activity WHERE issue_id = ? AND kind = 'comment'", issue),
    feedback: Number(feedback),
    monitor: `${org}-nightly`,
    rule: idOf("SELECT id FROM alert_rules WHERE project_id = ?", projectId),
    invitation: idOf("SELECT id FROM invitations WHERE email = ?", `invitee-${org}@example.com`),
    orgToken: idOf("SELECT id FROM api_tokens WHERE name = ?", `${org}-ci`),
    search: idOf("SELECT id FROM saved_searches WHERE name = ?", `${org} shared`),
    personalToken: idOf("SELECT id FROM api_tokens WHERE name = ?", `${org}-personal`),
    ownerId: org === "acme" ? userId(OWNER.email) : userId("gus@example.com"),
    memberId: org === "acme" ? userId("member@example.com") : userId("gus@example.com"),
    adminId: org === "acme" ? userId("admin@example.com") : userId("gus@example.com"),
    trace: traceId,
    span: spanId,
  };
}

beforeAll(async () => {
  server = await startServer();
  dbFile = path.join(server.dataDir, "faultline.db");
  for (const [key, entry] of serverActionsInBuild()) build.set(key, entry);
  const signIn = actionId("app/(auth)/sign-in/actions.ts", "signIn");
  as.owner = new Client(server.url);
  await as.owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme",
    orgSlug: "acme",
  });
  await as.owner.action("/sign-in", signIn, { email: OWNER.email, password: OWNER.password });
  const passwords: Record<string, string> = {};
  for (const role of ["admin", "member", "viewer", "gus"]) {
    const added = await as.owner.action(
      "/acme/settings/members",
      actionId("app/[org]/settings/members/actions.ts", "addMember"),
      { org: "acme", email: `${role}@example.com`, role: role === "gus" ? "member" : role },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    if (!password) throw new Error(`no password for ${role}: ${added.body.slice(0, 300)}`);
    passwords[role] = password;
  }
  for (const role of ["admin", "member", "viewer"] as const) {
    as[role] = new Client(server.url);
    await as[role].action("/sign-in", signIn, {
      email: `${role}@example.com`,
      password: passwords[role] as string,
    });
  }
  anonymous = new Client(server.url);

  // Globex: another organization, whose owner Gus is no member of Acme.
  const db = openDb(`file:${dbFile}`, { poolSize: 1 });
  let globexProject: number;
  try {
    const other = await insertOtherOrg(db, { org: "globex", project: "web" });
    globexProject = other.projectId;
    const accounts = accountsDb(db);
    const gusId = (
      await accounts
        .selectFrom("user")
        .select("id")
        .where("email", "=", "gus@example.com")
        .executeTakeFirstOrThrow()
    ).id;
    await accounts
      .updateTable("members")
      .set({ organization_id: other.orgId, role: "owner" })
      .where("user_id", "=", gusId)
      .execute();
  } finally {
    await db.close();
  }
  gus = new Client(server.url);
  await gus.action("/sign-in", signIn, {
    email: "gus@example.com",
    password: passwords.gus as string,
  });
  const globexKey = one<{ public_key: string }>(
    "SELECT public_key FROM project_keys WHERE project_id = ?",
    globexProject,
  ).public_key;
  const acmeProject = Number(new URL(server.dsn).pathname.slice(1));
  acme = await populate("acme", acmeProject, server.dsn, as.owner, as.member);
  globex = await populate(
    "globex",
    globexProject,
    `http://${globexKey}@127.0.0.1:${server.port}/${globexProject}`,
    gus,
    gus,
  );
  await settled();
}, 180_000);

/** Waits until the worker and the alert sender are done with what populate sent. */
async function settled(): Promise<void> {
  let last = JSON.stringify([...snapshot()]);
  let since = Date.now();
  await waitFor(
    async () => {
      await new Promise((r) => setTimeout(r, 500));
      const now = JSON.stringify([...snapshot()]);
      if (now !== last) {
        last = now;
        since = Date.now();
      }
      return Date.now() - since >= 3_000;
    },
    60_000,
    "a quiet database",
  );
}

afterAll(async () => {
  await server?.stop();
});

describe("the table of server actions", () => {
  it("has a row for every server action in app/ and in the build, and no other", () => {
    const table = Object.keys(SERVER_ACTIONS).sort();
    expect(sourceActions.length).toBeGreaterThan(40);
    expect(table, "a server action without a row in server-actions.ts").toEqual(sourceActions);
    expect([...build.keys()].sort(), "the build's actions").toEqual(sourceActions);
  });
});

const rows = Object.entries(SERVER_ACTIONS) as [string, ActionCase][];
const orgRows = rows.filter(([, c]) => c.need !== "self" && c.need !== "public" && !c.args);

describe.each(orgRows)("%s", (key, c) => {
  const need = c.need as Exclude<ActionCase["need"], "self" | "public">;
  const lacking = ROLES.filter((r) => !can(r, need));
  const weakest = [...ROLES].reverse().find((r) => can(r, need)) as Role;

  it.each(lacking.length > 0 ? lacking : ["(every role may)"])(
    "%s, who may not: as sent, reordered, duplicated, with a stronger action's values → 403 or refused, nothing changed",
    async (role) => {
      if (!(ROLES as readonly string[]).includes(role)) return;
      const client = as[role as Role];
      const fields = c.fields(acme);
      await attack("as sent", client, key, fields, "forbidden");
      await attack("reordered", client, key, [...fields].reverse(), "forbidden");
      await attack(
        "duplicated",
        client,
        key,
        fields.flatMap((p) => [p, p]),
        "audited",
      );
      if (c.stronger) await attack("stronger", client, key, c.stronger.fields(acme), "forbidden");
    },
  );

  it(`${weakest}, who may: a stronger or another organization's value beside the real one → refused, nothing changed`, async () => {
    const fields = c.fields(acme);
    const extras: Pairs[] = [];
    // A list field may repeat: only single-valued fields are tampering when sent twice.
    const single = (pairs: Pairs) => pairs.filter(([k]) => !c.lists?.includes(k));
    if (c.stronger && !can(weakest, c.stronger.need))
      extras.push(single(differing(fields, c.stronger.fields(acme))));
    if (c.other) extras.push(single(differing(fields, c.other(acme, globex))));
    extras.push([["org", "globex"]]);
    for (const extra of extras.filter((e) => e.length > 0)) {
      for (const first of [false, true])
        await attack(
          `${weakest} + ${JSON.stringify(extra)}`,
          as[weakest],
          key,
          doubled(fields, extra, first),
          "audited",
        );
    }
  });

  it("an owner naming another organization's objects → refused, nothing changed", async () => {
    if (c.other) {
      const refusal = c.otherUnmatched ? "unchanged" : "answer";
      await attack("other org's objects", as.owner, key, c.other(acme, globex), refusal);
    }
    // And another organization by name: not a member there, so it does not exist.
    const before = snapshot();
    const res = await submit(as.owner, key, globex, c.fields(globex));
    expect(res.status).toBe(404);
    expect(changedTables(before, snapshot())).toEqual([]);
  });
});

describe.each(rows.filter(([, c]) => c.need === "self" || c.need === "public"))("%s", (key, c) => {
  it("with a field repeated (either value first), or another user's objects → refused, nothing changed", async () => {
    const client = c.need === "self" ? as.member : anonymous;
    const fields = c.fields(acme);
    for (const [name, value] of fields.filter(([n]) => !c.lists?.includes(n))) {
      for (const first of [false, true])
        await attack(
          `${name} twice`,
          client,
          key,
          doubled(fields, [[name, `${value}x`]], first),
          "answer",
        );
    }
    if (c.other) await attack("another user's", client, key, c.other(acme, globex), "answer");
  });
});

describe("spanDetail (plain arguments)", () => {
  it("reads a span of its own organization, never another's through it", async () => {
    const entry = build.get("app/[org]/traces/[traceId]/actions.ts#spanDetail");
    if (!entry) throw new Error("spanDetail is not in the build");
    const own = await gus.call(pageUrl(entry.page, globex), entry.id, [
      "globex",
      globex.trace,
      globex.span,
    ]);
    expect(own.body).toContain(globex.span);
    const crossing = await as.owner.call(pageUrl(entry.page, acme), entry.id, [
      "acme",
      globex.trace,
      globex.span,
    ]);
    expect(crossing.status).toBe(200);
    expect(crossing.body).not.toContain(globex.span);
    const named = await as.owner.call(pageUrl(entry.page, acme), entry.id, [
      "globex",
      globex.trace,
      globex.span,
    ]);
    expect(named.status).toBe(404);
  });
});

describe("the audit log", () => {
  it("shows an owner who was refused which form, and what it carried", async () => {
    const key = "app/[org]/issues/actions.ts#bulkIssues";
    await attack(
      "member's hidden confirm:delete",
      as.member,
      key,
      [
        ["org", "acme"],
        ["id", String(acme.issue)],
        ["action", "resolve"],
        ["action", "confirm:delete"],
      ],
      "audited",
    );
    const page = await as.owner.get("/acme/settings/audit-log?event=form.refused");
    expect(page.status).toBe(200);
    const html = page.body.replaceAll("<!-- -->", "");
    expect(html).toContain(
      "was refused the form bulkIssues (repeated field — action: resolve, confirm:delete)",
    );
    expect(html).toContain("member@example.com");
  });
});
