import type { OrgGrant } from "../api/access";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { findProjectBySlugs } from "../projects/queries";
import { serializeUptimeMonitor } from "./model";
import { findUptimeMonitor, listProjectUptimeMonitors, type UptimeScope } from "./queries";

/** The uptime endpoints of the REST API, in Sentry's shapes (`/projects/<org>/<project>/uptime/`). */
export async function uptimeScope(
  db: Db,
  grant: OrgGrant,
  projectSlug: string,
): Promise<UptimeScope> {
  const project = await findProjectBySlugs(db, grant.org.slug, projectSlug);
  if (!project || Number(project.organizationId) !== grant.org.id)
    throw new AppError("not_found", "project not found");
  return { orgId: grant.org.id, projectId: Number(project.id), projectSlug: project.slug };
}

export async function projectUptimeResponse(db: Db, grant: OrgGrant, projectSlug: string) {
  const scope = await uptimeScope(db, grant, projectSlug);
  return (await listProjectUptimeMonitors(db, scope.projectId)).map(serializeUptimeMonitor);
}

export async function uptimeMonitorResponse(db: Db, scope: UptimeScope, id: number) {
  const m = await findUptimeMonitor(db, scope.projectId, id);
  if (!m) throw new AppError("not_found", "uptime monitor not found");
  return serializeUptimeMonitor(m);
}
