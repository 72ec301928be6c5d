import type { Transaction } from "kysely";
import { type AuditActor, recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
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

/** Who changes a project or key, and in which organization: recorded in the audit log. */
export interface Audited {
  orgId: number;
  actor: AuditActor;
}

/** Creates the project and its first DSN key, in one transaction. */
export async function createProject(
  db: Db,
  orgId: number,
  input: CreateProjectInput,
  actor: AuditActor,
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
      await recordAudit(trx, {
        orgId,
        actor,
        action: "project.create",
        target: input.slug,
        details: { name: input.name, platform: input.platform },
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
  actor: AuditActor,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("projects")
      .select(["name", "platform"])
      .where("organization_id", "=", orgId)
      .where("slug", "=", input.project)
      .executeTakeFirst();
    if (!before) throw new AppError("not_found", "project not found");
    await trx
      .updateTable("projects")
      .set({ name: input.name, platform: input.platform })
      .where("organization_id", "=", orgId)
      .where("slug", "=", input.project)
      .execute();
    const details: Record<string, { from: unknown; to: unknown }> = {};
    if (before.name !== input.name) details.name = { from: before.name, to: input.name };
    if (before.platform !== input.platform)
      details.platform = { from: before.platform, to: input.platform };
    if (Object.keys(details).length > 0)
      await recordAudit(trx, {
        orgId,
        actor,
        action: "project.settings_change",
        target: input.project,
        details,
      });
  });
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
  audit: Audited,
): Promise<{ publicKey: string }> {
  const { publicKey, secretKey } = generateKeyPair();
  await db.kysely.transaction().execute(async (trx) => {
    await trx
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
    await recordKey(trx, audit, "key.create", projectId, publicKey, label);
  });
  return { publicKey };
}

export async function setKeyEnabled(
  db: Db,
  projectId: number,
  publicKey: string,
  enabled: boolean,
  audit: Audited,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("project_keys")
      .set({ enabled: enabled ? 1 : 0 })
      .where("project_id", "=", projectId)
      .where("public_key", "=", publicKey)
      .executeTakeFirst();
    found(result.numUpdatedRows);
    await recordKey(trx, audit, enabled ? "key.enable" : "key.disable", projectId, publicKey);
  });
  invalidateKeyCaches(publicKey);
}

/** Null removes the limit. */
export async function setKeyRateLimit(
  db: Db,
  projectId: number,
  publicKey: string,
  rateLimit: RateLimit | null,
  audit: Audited,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("project_keys")
      .select(["rate_limit_window", "rate_limit_count"])
      .where("project_id", "=", projectId)
      .where("public_key", "=", publicKey)
      .executeTakeFirst();
    if (!before) throw new AppError("not_found", "key not found");
    await trx
      .updateTable("project_keys")
      .set({
        rate_limit_window: rateLimit?.window ?? null,
        rate_limit_count: rateLimit?.count ?? null,
      })
      .where("project_id", "=", projectId)
      .where("public_key", "=", publicKey)
      .execute();
    const from =
      before.rate_limit_window && before.rate_limit_count !== null
        ? { window: before.rate_limit_window, count: before.rate_limit_count }
        : null;
    await recordKey(trx, audit, "key.rate_limit_change", projectId, publicKey, undefined, {
      from,
      to: rateLimit,
    });
  });
  invalidateKeyCaches(publicKey);
}

/**
 * Envelopes already accepted with the key stay in the queue and are still processed: the
 * queue names the project, and they were acknowledged to the SDK.
 */
export async function deleteKey(
  db: Db,
  projectId: number,
  publicKey: string,
  audit: Audited,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const label = await keyLabel(trx, projectId, publicKey);
    const result = await trx
      .deleteFrom("project_keys")
      .where("project_id", "=", projectId)
      .where("public_key", "=", publicKey)
      .executeTakeFirst();
    found(result.numDeletedRows);
    await recordKey(trx, audit, "key.delete", projectId, publicKey, label);
  });
  invalidateKeyCaches(publicKey);
}

function found(rows: bigint): void {
  if (Number(rows) === 0) throw new AppError("not_found", "key not found");
}

async function keyLabel(
  trx: Transaction<Database>,
  projectId: number,
  publicKey: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom("project_keys")
    .select("label")
    .where("project_id", "=", projectId)
    .where("public_key", "=", publicKey)
    .executeTakeFirst();
  return row?.label;
}

/** A key is shown in the log as its label, its project and the start of its public key. */
async function recordKey(
  trx: Transaction<Database>,
  audit: Audited,
  action: "key.create" | "key.enable" | "key.disable" | "key.delete" | "key.rate_limit_change",
  projectId: number,
  publicKey: string,
  label?: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  const project = await trx
    .selectFrom("projects")
    .select("slug")
    .where("id", "=", projectId)
    .executeTakeFirst();
  const name = label ?? (await keyLabel(trx, projectId, publicKey)) ?? "key";
  await recordAudit(trx, {
    orgId: audit.orgId,
    actor: audit.actor,
    action,
    target: `${name} (${publicKey.slice(0, 8)}…) of ${project?.slug ?? `project ${projectId}`}`,
    details: { project: project?.slug, publicKey, ...details },
  });
}

export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL's unique_violation; better-sqlite3's extended result code.
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
