import type { ApiAccess } from "../api/access";
import type { Db } from "../db/connection";
import { AppError, isAppError } from "../errors";
import { actorOfGrant } from "./activity-hooks";
import { listTombstones, removeTombstone } from "./bulk/delete";
import { issueFingerprints, unmergeIssue } from "./bulk/unmerge";
import { getIssue } from "./queries";

/**
 * `GET /api/0/issues/<id>/hashes/` (the fingerprints an issue stands for) and
 * `DELETE …/hashes/?id=<fingerprint>` (unmerge them into an issue of their own), and a
 * project's tombstones (`GET /api/0/projects/<org>/<project>/tombstones/`,
 * `DELETE …/tombstones/<id>/`), in Sentry's shapes.
 */
async function issueFor(db: Db, access: ApiAccess, id: number, need: "event:read" | "event:write") {
  const issue = await getIssue(db, id);
  if (!issue) throw new AppError("not_found", "issue not found");
  try {
    return { issue, grant: await access.orgById(issue.orgId, need) };
  } catch (err) {
    if (isAppError(err) && err.code === "not_found")
      throw new AppError("not_found", "issue not found");
    throw err;
  }
}

export async function issueHashesResponse(db: Db, access: ApiAccess, id: number) {
  const { issue } = await issueFor(db, access, id, "event:read");
  const list = await issueFingerprints(db, issue);
  return list.map((f) => ({
    id: f.fingerprint,
    primary: f.primary,
    eventCount: f.events,
    mergedAt: f.mergedAt ? new Date(f.mergedAt).toISOString() : null,
    latestEvent: f.latest
      ? {
          eventID: f.latest.eventId,
          title: f.latest.title,
          dateCreated: new Date(f.latest.timestamp).toISOString(),
        }
      : null,
  }));
}

export async function unmergeResponse(db: Db, access: ApiAccess, id: number, url: URL) {
  const fingerprints = url.searchParams.getAll("id").filter((f) => /^[0-9a-f]{1,64}$/i.test(f));
  if (fingerprints.length === 0)
    throw new AppError("bad_request", "name the fingerprints to unmerge: id=…");
  const { issue, grant } = await issueFor(db, access, id, "event:write");
  const actor = await actorOfGrant(db, grant);
  const result = await unmergeIssue(db, issue.orgId, actor, issue.id, fingerprints);
  return Response.json({ id: String(result.issueId), events: result.events }, { status: 202 });
}

export async function tombstonesResponse(db: Db, orgId: number, projectId: number) {
  return (await listTombstones(db, orgId, projectId)).map((t) => ({
    id: String(t.id),
    level: t.level,
    message: t.title,
    culprit: t.culprit ?? "",
    type: t.type ? "error" : "default",
    metadata: { ...safeJson(t.metadata), type: t.type, value: t.value, title: t.title },
    actor: t.actor_user_id
      ? { id: t.actor_user_id, email: t.actor_label }
      : { name: t.actor_label },
    dateAdded: new Date(t.created_at).toISOString(),
  }));
}

export async function removeTombstoneResponse(
  db: Db,
  access: ApiAccess,
  orgSlug: string,
  id: number,
) {
  const grant = await access.org(orgSlug, "event:admin");
  await removeTombstone(db, grant.org.id, await actorOfGrant(db, grant), id);
  return new Response(null, { status: 204 });
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}
