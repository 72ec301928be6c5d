import type { Db } from "../db/connection";
import { env } from "../env";
import { AppError } from "../errors";
import { formatDsn } from "./dsn";
import { findProjectBySlugs, listProjectKeys } from "./queries";

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
    dateCreated: new Date(k.created_at).toISOString(),
    dsn: {
      public: formatDsn(base, k.public_key, project.id),
      secret: formatDsn(base, `${k.public_key}:${k.secret_key}`, project.id),
    },
  }));
}
