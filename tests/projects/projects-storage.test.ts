import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { KeyCache } from "../../src/ingest/accept/auth";
import { KeyRateLimiter } from "../../src/ingest/accept/rate-limit";
import {
  createKey,
  createProject,
  deleteKey,
  setKeyEnabled,
  setKeyRateLimit,
  updateProject,
} from "../../src/projects/mutations";
import {
  findOrgProject,
  findSetupDsn,
  listProjectKeys,
  listProjectSummaries,
} from "../../src/projects/queries";
import { createProjectSchema, setRateLimitSchema } from "../../src/projects/schemas";
import { type TestDatabase, testDialects } from "../helpers/databases";

/**
 * Projects and DSN keys on each database: a project comes with one key, slugs are unique per
 * organization, and disabling, deleting or limiting a key is what this process's ingest sees
 * on its very next lookup (the key cache is told, not waited out).
 */
const dialects = await testDialects();

describe.each(dialects)("projects and keys on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let orgId: number;
  let otherOrgId: number;
  let cache: KeyCache;

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    await bootstrap(db);
    orgId = Number(
      (await db.kysely.selectFrom("organizations").select("id").executeTakeFirstOrThrow()).id,
    );
    const other = await db.kysely
      .insertInto("organizations")
      .values({ slug: "globex", name: "Globex", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    otherOrgId = Number(other.id);
    // A TTL far longer than the test: only an invalidation can make it see a change.
    cache = new KeyCache(db, 3_600_000);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const input = (raw: Record<string, string>) => createProjectSchema.parse(raw);
  /** Who the audit log says made the changes (issue 24). */
  const ACTOR = { userId: null, label: "projects-storage test", ip: "127.0.0.1" };
  const audited = () => ({ orgId, actor: ACTOR });

  it("creates a project with one enabled DSN key, slug derived from the name", async () => {
    const created = await createProject(
      db,
      orgId,
      input({ name: "Web Shop (EU)", platform: "javascript-browser" }),
      ACTOR,
    );
    expect(created.slug).toBe("web-shop-eu");
    const project = await findOrgProject(db, orgId, "web-shop-eu");
    expect(project).toMatchObject({ name: "Web Shop (EU)", platform: "javascript-browser" });
    const keys = await listProjectKeys(db, created.id);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ public_key: created.publicKey, enabled: 1, label: "Default" });
    expect(created.publicKey).toMatch(/^[0-9a-f]{32}$/);
    expect(await cache.lookup(created.publicKey)).toMatchObject({
      projectId: created.id,
      organizationId: orgId,
      enabled: true,
      rateLimit: null,
    });

    const summaries = await listProjectSummaries(db, orgId);
    expect(summaries.map((p) => p.slug)).toEqual(["default", "faultline", "web-shop-eu"]);
    expect(summaries.find((p) => p.slug === "web-shop-eu")).toMatchObject({
      issueCount: 0,
      lastSeen: null,
    });
  });

  it("refuses a taken slug in the same organization, allows it in another", async () => {
    await expect(
      createProject(
        db,
        orgId,
        input({ name: "Other", slug: "Web-Shop-EU", platform: "node" }),
        ACTOR,
      ),
    ).rejects.toMatchObject({ code: "bad_request", message: expect.stringMatching(/already/) });
    const elsewhere = await createProject(
      db,
      otherOrgId,
      input({ name: "Shop", slug: "web-shop-eu", platform: "python" }),
      ACTOR,
    );
    expect(elsewhere.slug).toBe("web-shop-eu");
    expect((await findOrgProject(db, otherOrgId, "web-shop-eu"))?.id).toBe(elsewhere.id);
    expect((await listProjectSummaries(db, otherOrgId)).map((p) => p.slug)).toEqual([
      "web-shop-eu",
    ]);
  });

  it("validates names, slugs and platforms with clear messages", () => {
    const problem = (raw: Record<string, string>) =>
      createProjectSchema.safeParse(raw).error?.issues[0]?.message;
    expect(problem({ name: "", platform: "node" })).toBe("Enter a project name");
    expect(problem({ name: "x", slug: "-bad-", platform: "node" })).toMatch(/lowercase letters/);
    expect(problem({ name: "!!!", platform: "node" })).toMatch(/enter a slug/);
    expect(problem({ name: "x", platform: "cobol" })).toBe("Choose a platform");
    expect(problem({ name: "x", platform: "<script>" })).toBe("Choose a platform");
  });

  it("counts issues and the last event per project", async () => {
    const project = await findOrgProject(db, orgId, "web-shop-eu");
    if (!project) throw new Error("missing project");
    const base = {
      project_id: project.id,
      title: "Error: boom",
      culprit: null,
      type: "Error",
      value: "boom",
      level: "error",
      platform: "javascript",
      status: "unresolved" as const,
      substatus: null,
      first_seen: 1_000,
      times_seen: 1,
      user_count: 0,
      metadata: "{}",
    };
    await db.kysely
      .insertInto("issues")
      .values([
        { ...base, fingerprint: "a", last_seen: 5_000 },
        { ...base, fingerprint: "b", last_seen: 9_000 },
      ])
      .execute();
    const summary = (await listProjectSummaries(db, orgId)).find((p) => p.slug === "web-shop-eu");
    expect(summary).toMatchObject({ issueCount: 2, lastSeen: 9_000 });
  });

  it("renames a project and changes its platform, only in its organization", async () => {
    await updateProject(
      db,
      orgId,
      { project: "web-shop-eu", name: "Shop", platform: "nextjs" },
      ACTOR,
    );
    expect(await findOrgProject(db, orgId, "web-shop-eu")).toMatchObject({
      name: "Shop",
      platform: "nextjs",
    });
    await expect(
      updateProject(db, orgId, { project: "no-such", name: "x", platform: "node" }, ACTOR),
    ).rejects.toMatchObject({ code: "not_found" });
    expect((await findOrgProject(db, otherOrgId, "web-shop-eu"))?.name).toBe("Shop");
    expect((await findOrgProject(db, otherOrgId, "web-shop-eu"))?.platform).toBe("python");
  });

  it("disables, re-enables and deletes a key; ingest's cache sees each change at once", async () => {
    const project = await findOrgProject(db, orgId, "web-shop-eu");
    if (!project) throw new Error("missing project");
    const { publicKey } = await createKey(db, project.id, "CI", audited());
    expect((await cache.lookup(publicKey))?.enabled).toBe(true);

    const [first] = await listProjectKeys(db, project.id);
    expect(await findSetupDsn(db, project.id, "https://errors.example")).toBe(
      `https://${first?.public_key}@errors.example/${project.id}`,
    );

    await setKeyEnabled(db, project.id, publicKey, false, audited());
    expect((await cache.lookup(publicKey))?.enabled).toBe(false);
    const row = (await listProjectKeys(db, project.id)).find((k) => k.public_key === publicKey);
    expect(row).toMatchObject({ label: "CI", enabled: 0 });

    await setKeyEnabled(db, project.id, publicKey, true, audited());
    expect((await cache.lookup(publicKey))?.enabled).toBe(true);

    await deleteKey(db, project.id, publicKey, audited());
    expect(await cache.lookup(publicKey)).toBeNull();
    expect((await listProjectKeys(db, project.id)).map((k) => k.public_key)).not.toContain(
      publicKey,
    );
    await expect(deleteKey(db, project.id, publicKey, audited())).rejects.toMatchObject({
      code: "not_found",
    });

    // With every key off there is no DSN to teach.
    await setKeyEnabled(db, project.id, first?.public_key ?? "", false, audited());
    expect(await findSetupDsn(db, project.id, "https://errors.example")).toBeNull();
    await setKeyEnabled(db, project.id, first?.public_key ?? "", true, audited());
  });

  it("never touches a key through another project", async () => {
    const mine = await findOrgProject(db, orgId, "web-shop-eu");
    const theirs = await findOrgProject(db, otherOrgId, "web-shop-eu");
    if (!mine || !theirs) throw new Error("missing project");
    const [theirKey] = await listProjectKeys(db, theirs.id);
    if (!theirKey) throw new Error("missing key");
    const attempts = [
      () => setKeyEnabled(db, mine.id, theirKey.public_key, false, audited()),
      () => setKeyRateLimit(db, mine.id, theirKey.public_key, { window: 60, count: 1 }, audited()),
      () => deleteKey(db, mine.id, theirKey.public_key, audited()),
    ];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toMatchObject({ code: "not_found" });
    }
    const after = await listProjectKeys(db, theirs.id);
    expect(after).toEqual([theirKey]);
  });

  it("sets and removes a rate limit that ingest enforces on the next lookup", async () => {
    const project = await findOrgProject(db, orgId, "web-shop-eu");
    if (!project) throw new Error("missing project");
    const [key] = await listProjectKeys(db, project.id);
    if (!key) throw new Error("missing key");
    const form = setRateLimitSchema.parse({
      project: "web-shop-eu",
      key: key.public_key,
      window: "3600",
      count: "2",
    });
    expect(form.rateLimit).toEqual({ window: 3600, count: 2 });
    await setKeyRateLimit(db, project.id, key.public_key, form.rateLimit, audited());

    const info = await cache.lookup(key.public_key);
    expect(info?.rateLimit).toEqual({ window: 3600, count: 2 });
    if (!info) throw new Error("missing key info");
    const limiter = new KeyRateLimiter();
    const now = 7_200_000; // the start of an hour window
    expect(limiter.take(info, 1, now)).toBe(0);
    expect(limiter.take(info, 1, now)).toBe(0);
    expect(limiter.take(info, 1, now)).toBe(3600);

    const cleared = setRateLimitSchema.parse({
      project: "web-shop-eu",
      key: key.public_key,
      window: "60",
      count: "",
    });
    expect(cleared.rateLimit).toBeNull();
    await setKeyRateLimit(db, project.id, key.public_key, cleared.rateLimit, audited());
    expect((await cache.lookup(key.public_key))?.rateLimit).toBeNull();
    const row = (await listProjectKeys(db, project.id))[0];
    expect(row).toMatchObject({ rate_limit_window: null, rate_limit_count: null });

    const bad = (count: string, window = "60") =>
      setRateLimitSchema.safeParse({ project: "p", key: key.public_key, window, count }).success;
    expect(bad("-1")).toBe(false);
    expect(bad("1.5")).toBe(false);
    expect(bad("9999999999")).toBe(false);
    expect(bad("10", "86401")).toBe(false);
    expect(bad("10", "abc")).toBe(false);
  });
});
