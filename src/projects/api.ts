import { z } from "zod";
import type { Db } from "../db/connection";
import { env } from "../env";
import { AppError } from "../errors";
import { formatDsn } from "./dsn";
import { type Audited, setKeyRateLimit } from "./mutations";
import { findProjectBySlugs, listProjectKeys } from "./queries";
import { rateLimitShape } from "./schemas";

/** GET /api/0/projects/<org>/<project>/keys/ in Sentry's shape. */
export async function projectKeysResponse(
  db: Db,
  orgSlug: string,
  projectSlug: string,
  requestUrl: URL,
) {
  const project = await findProjectBySlugs(db, orgSlug, projectSlug);
  if (!project) throw new AppError("not_found", "project not found");
  const base = env().FAULTLINE_URL ?? requestUrl.origin;
  const keys = await listProjectKeys(db, project.id);
  return keys.map((k) => ({
    id: k.public_key,
    name: k.label,
    label: k.label,
    public: k.public_key,
    secret: k.secret_key,
    projectId: project.id,
    isActive: k.enabled === 1,
    rateLimit:
      k.rate_limit_window && k.rate_limit_count !== null
        ? { window: k.rate_limit_window, count: k.rate_limit_count }
        : null,
    dateCreated: new Date(k.created_at).toISOString(),
    dsn: {
      public: formatDsn(base, k.public_key, project.id),
      secret: formatDsn(base, `${k.public_key}:${k.secret_key}`, project.id),
    },
  }));
}

export const KeyUpdateSchema = z.object({
  /** Sentry's shape; null removes the limit. */
  rateLimit: rateLimitShape.nullable().optional(),
});

/** PUT /api/0/projects/<org>/<project>/keys/<public key>/ */
export async function updateProjectKey(
  db: Db,
  orgSlug: string,
  projectSlug: string,
  publicKey: string,
  update: z.infer<typeof KeyUpdateSchema>,
  requestUrl: URL,
  audit: Audited,
) {
  const project = await findProjectBySlugs(db, orgSlug, projectSlug);
  if (!project) throw new AppError("not_found", "project not found");
  if (update.rateLimit !== undefined) {
    await setKeyRateLimit(db, project.id, publicKey, update.rateLimit, audit);
  }
  const keys = await projectKeysResponse(db, orgSlug, projectSlug, requestUrl);
  const key = keys.find((k) => k.public === publicKey);
  if (!key) throw new AppError("not_found", "key not found");
  return key;
}
