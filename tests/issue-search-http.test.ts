import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../src/auth/permissions";
import { accountsDb } from "../src/auth/tables";
import { openDb } from "../src/db/connection";
import { actionId, Client, type HttpResult } from "./auth/http-client";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { API_TOKEN, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Issue search, bulk actions, merge and saved searches over HTTP against the production
 * server: the page and the API agree on what a search finds, bad queries get a 400 naming
 * the position, every new action answers each role (and a stranger, and nobody) as the
 * permission table says, and markup in search values stays text.
 */
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  bulk: actionId("app/[org]/issues/actions.ts", "bulkIssues"),
  saveSearch: actionId("app/[org]/issues/actions.ts", "saveSearch"),
  deleteSearch: actionId("app/[org]/issues/actions.ts", "deleteSearch"),
  unmerge: actionId("app/[org]/issues/[id]/merged/actions.ts", "unmerge"),
};
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const XSS = `<script>alert("xss")</script>`;

let server: RunningServer;
const as = {} as Record<Role | "stranger", Client>;
const dbUrl = () => `file:${path.join(server.dataDir, "faultline.db")}`;

async function signIn(client: Client, email: string, password: string): Promise<void> {
  const res = await client.action("/sign-in", ACTIONS.signIn, { email, password });
  expect(res.status).toBeLessThan(400);
}

function secretOf(result: HttpResult): string {
  const match = /"secret":"([^"]+)"/.exec(result.body);
  if (!match?.[1]) throw new Error(`no secret: ${result.status} ${result.body.slice(0, 300)}`);
  return match[1];
}

/** The API as a signed-in browser calls it: the session cookie, from Faultline's own origin. */
async function api(
  client: Client,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const res = await fetch(`${server.url}${pathname}`, {
    method,
    headers: {
      cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      origin: server.url,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

async function send(event: Record<string, unknown>): Promise<void> {
  const dsn = new URL(server.dsn);
  const res = await fetch(`${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`, {
    method: "POST",
    body: new Uint8Array(
      buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
    ),
  });
  expect(res.status).toBe(200);
}

const issueIdsOfPage = (html: string) =>
  [...html.matchAll(/data-issue-link=""[^>]*href="\/acme\/issues\/(\d+)"/g)].map((m) =>
    Number(m[1]),
  );

beforeAll(async () => {
  server = await startServer();
  as.owner = new Client(server.url);
  await as.owner.action("/setup", ACTIONS.setUp, { ...OWNER, orgName: "Acme", orgSlug: "acme" });
  await signIn(as.owner, OWNER.email, OWNER.password);
  for (const role of ["admin", "member", "viewer"] as const) {
    const email = `${role}@example.com`;
    const added = await as.owner.action(
      "/acme/settings/members",
      ACTIONS.addMember,
      { org: "acme", email, role },
      { withState: true },
    );
    as[role] = new Client(server.url);
    await signIn(as[role], email, secretOf(added));
  }
  // The stranger belongs to another organization only.
  const added = await as.owner.action(
    "/acme/settings/members",
    ACTIONS.addMember,
    { org: "acme", email: "gus@example.com", role: "member" },
    { withState: true },
  );
  as.stranger = new Client(server.url);
  await signIn(as.stranger, "gus@example.com", secretOf(added));
  const db = openDb(dbUrl());
  try {
    const globex = await db.kysely
      .insertInto("organizations")
      .values({ slug: "globex", name: "Globex", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    await accountsDb(db)
      .updateTable("members")
      .set({ organization_id: globex.id, role: "owner" })
      .where(
        "user_id",
        "=",
        (
          await accountsDb(db)
            .selectFrom("user")
            .select("id")
            .where("email", "=", "gus@example.com")
            .executeTakeFirstOrThrow()
        ).id,
      )
      .execute();
  } finally {
    await db.close();
  }

  const base = realNodeErrorEvent();
  const levels = ["error", "warning", "info"];
  for (let i = 0; i < 24; i++) {
    const event = variant(base, {
      path: `h${i}`,
      value: i === 5 ? `Rendered ${XSS}` : `Checkout step ${i} failed`,
    });
    event.level = levels[i % 3];
    event.environment = i % 2 ? "production" : "staging";
    event.tags = {
      browser: i === 7 ? XSS : i % 4 ? "Chrome" : "Firefox",
      link: "javascript:alert(1)",
    };
    event.user = { id: `u${i % 5}`, email: `u${i % 5}@shop.test` };
    await send(event);
  }
  await waitFor(
    async () =>
      (await server.api<unknown[]>("/api/0/organizations/acme/issues/?query=&limit=100")).body
        .length === 24,
    30_000,
    "24 issues",
  );
});

afterEach((context) => {
  if (context.task.result?.state === "fail") console.log(server?.logs().slice(-4000));
});

afterAll(async () => {
  await server?.stop();
});

describe("search over HTTP", () => {
  const QUERIES = [
    "",
    "is:unresolved",
    "level:warning",
    "!level:info environment:production",
    "browser:Chrome checkout step 1",
    "user.email:u3@shop.test",
    "has:browser timesSeen:1 users:>=1 age:-1d",
    'browser:"<script>*"',
  ];

  it("finds the same issues on the page, in the organization's API and in the project's", async () => {
    for (const query of QUERIES) {
      const qs = `query=${encodeURIComponent(query)}`;
      const page = await as.owner.get(`/acme/issues?${qs}`);
      expect(page.status, query).toBe(200);
      const fromApi = await api(
        as.owner,
        "GET",
        `/api/0/organizations/acme/issues/?${qs}&limit=100`,
      );
      const apiIds = (fromApi.json as { id: string }[]).map((i) => Number(i.id));
      expect(issueIdsOfPage(page.body), query).toEqual(apiIds);
      const total = Number(fromApi.headers.get("x-hits"));
      expect(total, query).toBe(apiIds.length);
      if (total > 0)
        expect(page.body.replaceAll("<!-- -->", ""), query).toContain(`of ${total} issue`);
      const project = await api(
        as.owner,
        "GET",
        `/api/0/projects/acme/default/issues/?${qs}&limit=100`,
      );
      expect(
        (project.json as { id: string }[]).map((i) => Number(i.id)),
        query,
      ).toEqual(apiIds);
    }
    // The default search is Sentry's: unresolved issues.
    const all = await server.api<unknown[]>("/api/0/organizations/acme/issues/?limit=100");
    expect(all.body).toHaveLength(24);
  });

  it("pages with Sentry's Link header and cursor", async () => {
    const first = await api(as.owner, "GET", "/api/0/organizations/acme/issues/?query=&limit=10");
    expect(first.json).toHaveLength(10);
    const link = first.headers.get("link") ?? "";
    const next = /<([^>]+)>; rel="next"; results="true"/.exec(link)?.[1];
    expect(next).toBeDefined();
    const second = await api(
      as.owner,
      "GET",
      new URL(next as string).pathname + new URL(next as string).search,
    );
    const ids = new Set(
      [...(first.json as { id: string }[]), ...(second.json as { id: string }[])].map((i) => i.id),
    );
    expect(ids.size).toBe(20);
  });

  it("refuses a query it cannot read with the position, and bad parameters by name", async () => {
    const bad = await api(
      as.owner,
      "GET",
      `/api/0/organizations/acme/issues/?query=${encodeURIComponent('is:unresolved browser:"Chrome')}`,
    );
    expect(bad.status).toBe(400);
    expect((bad.json as { detail: string }).detail).toBe(
      'Invalid search query: Unterminated quote: add the closing " (at character 23)',
    );
    const tooLong = await api(
      as.owner,
      "GET",
      `/api/0/organizations/acme/issues/?query=${"a".repeat(1001)}`,
    );
    expect((tooLong.json as { detail: string }).detail).toMatch(/at most 1000 characters/);
    expect(
      (await api(as.owner, "GET", "/api/0/organizations/acme/issues/?sort=priority")).status,
    ).toBe(400);
    expect(
      (await api(as.owner, "GET", "/api/0/organizations/acme/issues/?project=nope")).status,
    ).toBe(404);
    expect((await api(as.owner, "GET", "/api/0/organizations/globex/issues/")).status).toBe(404);
    // The page keeps the query as typed and says where it breaks; the list stays on the default.
    const page = await as.owner.get(`/acme/issues?query=${encodeURIComponent("level:critical")}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      "level: takes fatal, error, warning, info, debug; not &quot;critical&quot; (at character 7)",
    );
    expect(issueIdsOfPage(page.body)).toHaveLength(24);
  });

  it("suggests tag keys and values from the stored tags", async () => {
    const keys = await api(as.owner, "GET", "/api/0/organizations/acme/tags/");
    expect((keys.json as { key: string }[]).map((k) => k.key)).toEqual(
      expect.arrayContaining(["browser", "environment", "link"]),
    );
    const values = await api(
      as.owner,
      "GET",
      "/api/0/organizations/acme/tags/browser/values/?query=Ch",
    );
    expect(values.json).toEqual([
      expect.objectContaining({ key: "browser", value: "Chrome", count: 17 }),
    ]);
    const users = await api(
      as.owner,
      "GET",
      "/api/0/organizations/acme/tags/user.email/values/?query=u1",
    );
    expect((users.json as { value: string }[]).map((v) => v.value)).toEqual(["u1@shop.test"]);
    expect((await api(as.viewer, "GET", "/api/0/organizations/acme/tags/")).status).toBe(200);
    expect((await api(as.stranger, "GET", "/api/0/organizations/acme/tags/")).status).toBe(404);
  });

  it("keeps markup and javascript: in search values inert", async () => {
    const query = `browser:"${XSS.replaceAll('"', '\\"')}" javascript:alert(1)`;
    const page = await as.owner.get(`/acme/issues?query=${encodeURIComponent(query)}`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(XSS);
    expect(page.body).not.toMatch(/href="javascript:/i);
    const saved = await as.owner.action(
      "/acme/issues",
      ACTIONS.saveSearch,
      { org: "acme", name: `<img src=x onerror=alert(1)>`, query: "javascript:alert(1)" },
      { withState: true },
    );
    expect(saved.status).toBe(200);
    const list = await as.owner.get("/acme/issues");
    expect(list.body).not.toContain("<img src=x onerror");
    expect(list.body).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(list.body).not.toMatch(/href="javascript:/i);
    expect(list.body).toContain('href="/acme/issues?query=javascript%3Aalert%281%29"');
  });
});

describe("permission matrix of bulk actions, merge, unmerge, saved searches and tombstones", () => {
  type Who = Role | "stranger" | "nobody";
  const WHO: Who[] = ["owner", "admin", "member", "viewer", "stranger", "nobody"];
  const client = (who: Who) => (who === "nobody" ? new Client(server.url) : as[who]);

  async function ids(query: string): Promise<number[]> {
    const res = await server.api<{ id: string }[]>(
      `/api/0/organizations/acme/issues/?query=${encodeURIComponent(query)}&limit=100`,
    );
    return res.body.map((i) => Number(i.id));
  }

  it("resolves and reopens in bulk (issues.write): owner, admin and member; not viewer or others", async () => {
    const [target] = await ids("checkout step 3");
    const EXPECTED: Record<Who, number> = {
      owner: 200,
      admin: 200,
      member: 200,
      viewer: 403,
      stranger: 404,
      nobody: 401,
    };
    for (const who of WHO) {
      const res = await client(who).action(
        "/acme/issues",
        ACTIONS.bulk,
        { org: "acme", action: "resolve", id: String(target), query: "is:unresolved" },
        { withState: true },
      );
      expect(res.status, who).toBe(EXPECTED[who]);
      if (res.status === 200) {
        expect(res.body, who).toMatch(/Resolved 1 issue\./);
      }
      await client("owner").action(
        "/acme/issues",
        ACTIONS.bulk,
        { org: "acme", action: "unresolve", id: String(target) },
        { withState: true },
      );
    }
    const api403: Record<Who, number> = {
      owner: 200,
      admin: 200,
      member: 200,
      viewer: 403,
      stranger: 404,
      nobody: 401,
    };
    for (const who of WHO) {
      const res = await api(client(who), "PUT", `/api/0/organizations/acme/issues/?id=${target}`, {
        status: "ignored",
      });
      expect(res.status, `PUT ${who}`).toBe(api403[who]);
      await api(as.owner, "PUT", `/api/0/organizations/acme/issues/?id=${target}`, {
        status: "unresolved",
      });
    }
  });

  it("deletes and discards (issues.delete): owner and admin only", async () => {
    const victims = await ids("checkout step 1");
    expect(victims.length).toBeGreaterThan(3);
    const EXPECTED: Record<Who, number> = {
      owner: 200,
      admin: 200,
      member: 403,
      viewer: 403,
      stranger: 404,
      nobody: 401,
    };
    let left = [...victims];
    for (const who of WHO) {
      const victim = left[0] as number;
      const res = await client(who).action(
        "/acme/issues",
        ACTIONS.bulk,
        { org: "acme", action: "confirm:delete", id: String(victim) },
        { withState: true },
      );
      expect(res.status, who).toBe(EXPECTED[who]);
      if (res.status === 200) {
        expect(res.body).toMatch(/Deleted 1 issue and 1 event/);
        left = left.slice(1);
      }
    }
    // Asked first: without confirm:, nothing is deleted and the question says how many.
    const ask = await as.owner.action(
      "/acme/issues",
      ACTIONS.bulk,
      { org: "acme", action: "discard", id: String(left[0]) },
      { withState: true },
    );
    expect(ask.body).toMatch(/discard their future events/);
    expect(await ids("checkout step 1")).toEqual(expect.arrayContaining(left));
    const apiDelete: Record<Who, number> = {
      owner: 204,
      admin: 204,
      member: 403,
      viewer: 403,
      stranger: 404,
      nobody: 401,
    };
    for (const who of ["member", "viewer", "stranger", "nobody", "admin"] as Who[]) {
      const res = await api(
        client(who),
        "DELETE",
        `/api/0/organizations/acme/issues/?id=${left[0]}`,
      );
      expect(res.status, `DELETE ${who}`).toBe(apiDelete[who]);
    }
    const discard = await api(as.member, "PUT", `/api/0/organizations/acme/issues/?id=${left[1]}`, {
      discard: true,
    });
    expect(discard.status).toBe(403);
    const discarded = await api(
      as.admin,
      "PUT",
      `/api/0/organizations/acme/issues/?id=${left[1]}`,
      { discard: true },
    );
    expect(discarded.status).toBe(200);
    const tombstones = await api(as.viewer, "GET", "/api/0/projects/acme/default/tombstones/");
    expect(tombstones.status).toBe(200);
    const [tombstone] = tombstones.json as { id: string }[];
    expect(
      (await api(as.member, "DELETE", `/api/0/projects/acme/default/tombstones/${tombstone?.id}/`))
        .status,
    ).toBe(403);
    expect(
      (
        await api(
          as.stranger,
          "DELETE",
          `/api/0/projects/acme/default/tombstones/${tombstone?.id}/`,
        )
      ).status,
    ).toBe(404);
    expect(
      (await api(as.admin, "DELETE", `/api/0/projects/acme/default/tombstones/${tombstone?.id}/`))
        .status,
    ).toBe(204);
    // Deleting needs the issues named: an empty request never touches everything.
    expect((await api(as.owner, "DELETE", "/api/0/organizations/acme/issues/")).status).toBe(400);
  });

  it("merges and unmerges (issues.write), and names a merge across organizations", async () => {
    const [a, b, c] = await ids("checkout step 2");
    expect(c).toBeDefined();
    const viewer = await as.viewer.action(
      "/acme/issues",
      ACTIONS.bulk,
      { org: "acme", action: "confirm:merge", id: String(a) },
      { withState: true },
    );
    expect(viewer.status).toBe(403);
    const merged = await api(
      as.member,
      "PUT",
      `/api/0/organizations/acme/issues/?id=${a}&id=${b}&id=${c}`,
      { merge: 1 },
    );
    expect(merged.status).toBe(200);
    const parent = Number((merged.json as { merge: { parent: string } }).merge.parent);
    const hashes = await api(as.viewer, "GET", `/api/0/issues/${parent}/hashes/`);
    expect(hashes.status).toBe(200);
    expect(hashes.json).toHaveLength(3);
    const child = (hashes.json as { id: string; primary: boolean }[]).find((h) => !h.primary)
      ?.id as string;
    expect((await api(as.stranger, "GET", `/api/0/issues/${parent}/hashes/`)).status).toBe(404);
    expect(
      (await api(as.viewer, "DELETE", `/api/0/issues/${parent}/hashes/?id=${child}`)).status,
    ).toBe(403);
    const unmerge = await as.member.action(
      `/acme/issues/${parent}/merged`,
      ACTIONS.unmerge,
      { org: "acme", issueId: String(parent), fingerprint: child },
      { withState: true },
    );
    expect(unmerge.status).toBe(200);
    expect(unmerge.body).toMatch(/Moved 1 event to issue \d+/);
    const unmergedApi = await api(
      as.admin,
      "DELETE",
      `/api/0/issues/${parent}/hashes/?id=${(hashes.json as { id: string; primary: boolean }[]).filter((h) => !h.primary)[1]?.id}`,
    );
    expect(unmergedApi.status).toBe(202);
    // A merge reaching into another organization names the problem and changes nothing.
    const foreign = await api(
      as.owner,
      "PUT",
      `/api/0/organizations/acme/issues/?id=${parent}&id=999999`,
      { merge: 1 },
    );
    expect(foreign.status).toBe(400);
    expect((foreign.json as { detail: string }).detail).toBe(
      "issue 999999 is not in this organization",
    );
    const across = await as.owner.action(
      "/acme/issues",
      ACTIONS.bulk,
      { org: "acme", action: "confirm:merge", id: String(a) },
      { withState: true },
    );
    expect(across.body).toMatch(/two or more/);
  });

  it("saves searches: one's own for anyone, the organization's for admins", async () => {
    const EXPECTED: Record<Who, number> = {
      owner: 201,
      admin: 201,
      member: 403,
      viewer: 403,
      stranger: 404,
      nobody: 401,
    };
    for (const who of WHO) {
      const res = await api(client(who), "POST", "/api/0/organizations/acme/searches/", {
        name: `shared by ${who}`,
        query: "is:unresolved level:error",
        visibility: "organization",
      });
      expect(res.status, who).toBe(EXPECTED[who]);
    }
    const own = await api(as.viewer, "POST", "/api/0/organizations/acme/searches/", {
      name: "mine",
      query: "assigned:me",
    });
    expect(own.status).toBe(201);
    const bad = await api(as.viewer, "POST", "/api/0/organizations/acme/searches/", {
      name: "bad",
      query: 'x:"',
    });
    expect(bad.status).toBe(400);
    const seen = await api(as.member, "GET", "/api/0/organizations/acme/searches/");
    expect((seen.json as { name: string }[]).map((s) => s.name)).toEqual([
      "shared by admin",
      "shared by owner",
    ]);
    const viewerSees = await api(as.viewer, "GET", "/api/0/organizations/acme/searches/");
    expect((viewerSees.json as { name: string }[]).map((s) => s.name)).toEqual([
      "mine",
      "shared by admin",
      "shared by owner",
    ]);
    const shared = (seen.json as { id: string }[])[0]?.id;
    expect(
      (await api(as.member, "DELETE", `/api/0/organizations/acme/searches/${shared}/`)).status,
    ).toBe(403);
    expect(
      (
        await api(
          as.member,
          "DELETE",
          `/api/0/organizations/acme/searches/${(own.json as { id: string }).id}/`,
        )
      ).status,
    ).toBe(404);
    const formDelete = await as.member.action(
      "/acme/issues",
      ACTIONS.deleteSearch,
      { org: "acme", id: String(shared) },
      { withState: true },
    );
    expect(formDelete.status).toBe(403);
    expect(
      (await api(as.admin, "DELETE", `/api/0/organizations/acme/searches/${shared}/`)).status,
    ).toBe(204);
    const memberShares = await as.member.action(
      "/acme/issues",
      ACTIONS.saveSearch,
      { org: "acme", name: "for all", query: "", shared: "on" },
      { withState: true },
    );
    expect(memberShares.status).toBe(403);
  });

  it("takes the operator's token for the API", async () => {
    const res = await fetch(`${server.url}/api/0/organizations/acme/issues/?query=is:unresolved`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const me = await fetch(`${server.url}/api/0/organizations/acme/issues/?query=assigned:me`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(me.status).toBe(400);
    expect(((await me.json()) as { detail: string }).detail).toMatch(/needs a signed-in user/);
  });
});
