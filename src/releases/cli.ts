import { z } from "zod";
import type { Db } from "../db/connection";
import { AppError } from "../errors";

/**
 * The release calls sentry-cli and the bundler plugins make around an upload:
 * `releases new` (POST …/releases/), `releases finalize` (PUT …/releases/<version>/) and
 * `deploys new` / `deploys list` (…/releases/<version>/deploys/). Answers carry Sentry's
 * field names, which the CLI deserializes.
 */
const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
const isoDate = z
  .string()
  .max(64)
  .refine((s) => !Number.isNaN(Date.parse(s)), "expected an ISO date")
  .transform((s) => Date.parse(s));

export const NewReleaseBody = z.object({
  version: z
    .string()
    .min(1)
    .max(200)
    .refine((v) => v.trim() === v && !/[\n\r\t/\\]/.test(v) && v !== "." && v !== "..", {
      message: "not a valid release version",
    }),
  projects: z.array(z.string().min(1).max(100)).max(1000).default([]),
  ref: z.string().max(200).nullish(),
  url: z.string().max(2000).nullish(),
  dateReleased: isoDate.nullish(),
  dateStarted: isoDate.nullish(),
});

export const UpdateReleaseBody = z.object({
  ref: z.string().max(200).nullish(),
  url: z.string().max(2000).nullish(),
  dateReleased: isoDate.nullish(),
  projects: z.array(z.string().min(1).max(100)).max(1000).optional(),
});

export const NewDeployBody = z.object({
  environment: z.string().min(1).max(64),
  name: z.string().max(200).nullish(),
  url: z.string().max(2000).nullish(),
  dateStarted: isoDate.nullish(),
  dateFinished: isoDate.nullish(),
  projects: z.array(z.string().min(1).max(100)).max(1000).optional(),
});

async function projectIds(db: Db, orgId: number, slugs: string[]): Promise<number[]> {
  const wanted = [...new Set(slugs)];
  if (wanted.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("projects")
    .select(["id", "slug"])
    .where("organization_id", "=", orgId)
    .where("slug", "in", wanted)
    .execute();
  const unknown = wanted.filter((s) => !rows.some((r) => r.slug === s));
  if (unknown.length > 0) {
    throw new AppError("bad_request", `projects: not projects of this organization: ${unknown}`);
  }
  return rows.map((r) => r.id);
}

async function findRelease(db: Db, orgId: number, version: string) {
  return db.kysely
    .selectFrom("releases")
    .selectAll()
    .where("organization_id", "=", orgId)
    .where("version", "=", version)
    .executeTakeFirst();
}

/** The release as Sentry's API shows it, or null when the CLI never created it. */
export async function cliRelease(db: Db, orgId: number, version: string) {
  const r = await findRelease(db, orgId, version);
  if (!r) return null;
  const [projects, deploys] = await Promise.all([
    db.kysely
      .selectFrom("release_projects")
      .innerJoin("projects", "projects.id", "release_projects.project_id")
      .select(["projects.id", "projects.slug", "projects.name", "projects.platform"])
      .where("release_projects.release_id", "=", r.id)
      .orderBy("projects.slug")
      .execute(),
    db.kysely
      .selectFrom("release_deploys")
      .selectAll()
      .where("release_id", "=", r.id)
      .orderBy("date_finished", "desc")
      .execute(),
  ]);
  const last = deploys[0];
  return {
    id: r.id,
    version: r.version,
    shortVersion: r.version.includes("@")
      ? r.version.slice(r.version.lastIndexOf("@") + 1)
      : r.version,
    ref: r.ref,
    url: r.url,
    dateCreated: iso(r.date_created),
    dateReleased: iso(r.date_released),
    data: {},
    newGroups: 0,
    owner: null,
    commitCount: 0,
    lastCommit: null,
    deployCount: deploys.length,
    lastDeploy: last ? deployJson(last) : null,
    authors: [],
    firstEvent: null,
    lastEvent: null,
    projects: projects.map((p) => ({
      id: String(p.id),
      slug: p.slug,
      name: p.name,
      platform: p.platform,
      platforms: p.platform ? [p.platform] : [],
      hasHealthData: false,
      newGroups: 0,
    })),
  };
}

function deployJson(d: {
  id: number;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: number | null;
  date_finished: number;
}) {
  return {
    id: String(d.id),
    environment: d.environment,
    name: d.name,
    url: d.url,
    dateStarted: iso(d.date_started),
    dateFinished: iso(d.date_finished),
  };
}

/** `releases new`: creates the release, or adds projects to an existing one (Sentry's 208). */
export async function createRelease(
  db: Db,
  orgId: number,
  body: z.infer<typeof NewReleaseBody>,
): Promise<{ status: number; release: NonNullable<Awaited<ReturnType<typeof cliRelease>>> }> {
  const ids = await projectIds(db, orgId, body.projects);
  let existing = await findRelease(db, orgId, body.version);
  const created = !existing;
  if (!existing) {
    await db.kysely
      .insertInto("releases")
      .values({
        organization_id: orgId,
        version: body.version,
        ref: body.ref ?? null,
        url: body.url ?? null,
        date_created: body.dateStarted ?? Date.now(),
        date_released: body.dateReleased ?? null,
      })
      .onConflict((oc) => oc.columns(["organization_id", "version"]).doNothing())
      .execute();
    existing = await findRelease(db, orgId, body.version);
  }
  if (!existing) throw new AppError("internal", "release could not be created");
  await linkProjects(db, existing.id, ids);
  const release = await cliRelease(db, orgId, body.version);
  if (!release) throw new AppError("not_found", "release not found");
  return { status: created ? 201 : 208, release };
}

async function linkProjects(db: Db, releaseId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.kysely
    .insertInto("release_projects")
    .values(ids.map((project_id) => ({ release_id: releaseId, project_id })))
    .onConflict((oc) => oc.columns(["release_id", "project_id"]).doNothing())
    .execute();
}

/** `releases finalize` and other edits: PUT …/releases/<version>/. */
export async function updateRelease(
  db: Db,
  orgId: number,
  version: string,
  body: z.infer<typeof UpdateReleaseBody>,
) {
  const r = await findRelease(db, orgId, version);
  if (!r) throw new AppError("not_found", "release not found");
  const set: { ref?: string | null; url?: string | null; date_released?: number | null } = {};
  if (body.ref !== undefined) set.ref = body.ref;
  if (body.url !== undefined) set.url = body.url;
  if (body.dateReleased !== undefined) set.date_released = body.dateReleased;
  if (Object.keys(set).length > 0) {
    await db.kysely.updateTable("releases").set(set).where("id", "=", r.id).execute();
  }
  if (body.projects) await linkProjects(db, r.id, await projectIds(db, orgId, body.projects));
  return cliRelease(db, orgId, version);
}

export async function createDeploy(
  db: Db,
  orgId: number,
  version: string,
  body: z.infer<typeof NewDeployBody>,
) {
  const r = await findRelease(db, orgId, version);
  if (!r) throw new AppError("not_found", "release not found");
  const inserted = await db.kysely
    .insertInto("release_deploys")
    .values({
      release_id: r.id,
      environment: body.environment,
      name: body.name ?? null,
      url: body.url ?? null,
      date_started: body.dateStarted ?? null,
      date_finished: body.dateFinished ?? Date.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return deployJson(inserted);
}

export async function listDeploys(db: Db, orgId: number, version: string) {
  const r = await findRelease(db, orgId, version);
  if (!r) throw new AppError("not_found", "release not found");
  const rows = await db.kysely
    .selectFrom("release_deploys")
    .selectAll()
    .where("release_id", "=", r.id)
    .orderBy("date_finished", "desc")
    .execute();
  return rows.map(deployJson);
}
