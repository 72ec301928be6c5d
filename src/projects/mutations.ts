import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { invalidateKeyCaches } from "../ingest/accept/auth";
import { generateKeyPair } from "./dsn";
import { insertProjectWithKey } from "./insert-project";
import { findOrgProject, type ProjectDetail } from "./queries";
import type { CreateProjectInput, Platform, RateLimit } from "./schemas";

/**
 * Project and DSN key changes. Every function is scoped to an organization (projects) or a
 * project (keys) that the caller has already resolved for the signed-in user, so a key of
 * another project is "not found", never touched. Key changes reach this process's ingest at
 * once (invalidateKeyCaches) and other processes within their key cache's TTL.
 */

/** Creates the project and its first DSN key, in one transaction. */
export async function createProject(
  db: Db,
  orgId: number,
  input: CreateProjectInput,
): Promise<{ id: number; slug: string; publicKey: string }> {
  const taken = () =>
    new AppError(
      "bad_request",
      `This organization already has a project with the slug "${input.slug}"; choose another slug`,
    );
  if (await findOrgProject(db, orgId, input.slug)) throw taken();
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      const { id, publicKey } = await insertProjectWithKey(trx, {
        organizationId: orgId,
        slug: input.slug,
        name: input.name,
        platform: input.platform,
      });
      return { id, slug: input.slug, publicKey };
    });
  } catch (err) {
    // Two people creating the same slug at once: the unique constraint decides.
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
}

export async function updateProject(
  db: Db,
  orgId: number,
  input: { project: string; name: string; platform: Platform },
): Promise<void> {
  const result = await db.kysely
    .updateTable("projects")
    .set({ name: input.name, platform: input.platform })
    .where("organization_id", "=", orgId)
    .where("slug", "=", input.project)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new AppError("not_found", "project not found");
}

/** The organization's project named by `slug`, or a not_found AppError. */
export async function requireOrgProject(
  db: Db,
  orgId: number,
  slug: string,
): Promise<ProjectDetail> {
  const project = await findOrgProject(db, orgId, slug);
  if (!project) throw new AppError("not_found", "project not found");
  return project;
}

export async function createKey(
  db: Db,
  projectId: number,
  label: string,
): Promise<{ publicKey: string }> {
  const { publicKey, secretKey } = generateKeyPair();
  await db.kysely
    .insertInto("project_keys")
    .values({
      project_id: projectId,
      public_key: publicKey,
      secret_key: secretKey,
      label,
      enabled: 1,
      created_at: Date.now(),
    })
    .execute();
  return { publicKey };
}

export async function setKeyEnabled(
  db: Db,
  projectId: number,
  publicKey: string,
  enabled: boolean,
): Promise<void> {
  const result = await db.kysely
    .updateTable("project_keys")
    .set({ enabled: enabled ? 1 : 0 })
    .where("project_id", "=", projectId)
    .where("public_key", "=", publicKey)
    .executeTakeFirst();
  keyChanged(result.numUpdatedRows, publicKey);
}

/** Null removes the limit. */
export async function setKeyRateLimit(
  db: Db,
  projectId: number,
  publicKey: string,
  rateLimit: RateLimit | null,
): Promise<void> {
  const result = await db.kysely
    .updateTable("project_keys")
    .set({
      rate_limit_window: rateLimit?.window ?? null,
      rate_limit_count: rateLimit?.count ?? null,
    })
    .where("project_id", "=", projectId)
    .where("public_key", "=", publicKey)
    .executeTakeFirst();
  keyChanged(result.numUpdatedRows, publicKey);
}

/**
 * Envelopes already accepted with the key stay in the queue and are still processed: the
 * queue names the project, and they were acknowledged to the SDK.
 */
export async function deleteKey(db: Db, projectId: number, publicKey: string): Promise<void> {
  const result = await db.kysely
    .deleteFrom("project_keys")
    .where("project_id", "=", projectId)
    .where("public_key", "=", publicKey)
    .executeTakeFirst();
  keyChanged(result.numDeletedRows, publicKey);
}

function keyChanged(rows: bigint, publicKey: string): void {
  if (Number(rows) === 0) throw new AppError("not_found", "key not found");
  invalidateKeyCaches(publicKey);
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL's unique_violation; better-sqlite3's extended result code.
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
