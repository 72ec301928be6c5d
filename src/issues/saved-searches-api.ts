import { z } from "zod";
import type { ApiAccess, OrgGrant } from "../api/access";
import { jsonBody } from "../api/handler";
import type { Db } from "../db/connection";
import { isAppError } from "../errors";
import { actorOfGrant } from "./activity-hooks";
import {
  createSavedSearch,
  deleteSavedSearch,
  listSavedSearches,
  type SavedSearch,
  type SearchActor,
} from "./saved-searches";
import { ISSUE_SORTS } from "./schemas";

/**
 * `GET`/`POST /api/0/organizations/<org>/searches/` and `DELETE …/searches/<id>/`: Sentry's
 * saved searches. `visibility` is `owner` (the caller's) or `organization` (needs org:write).
 */
function serialize(s: SavedSearch) {
  return {
    id: String(s.id),
    type: 0,
    name: s.name,
    query: s.query,
    sort: s.sort ?? "date",
    visibility: s.shared ? "organization" : "owner",
    isGlobal: false,
    isPinned: false,
    dateCreated: new Date(s.createdAt).toISOString(),
  };
}

async function searchActor(db: Db, access: ApiAccess, grant: OrgGrant): Promise<SearchActor> {
  const actor = await actorOfGrant(db, grant);
  let mayShare = true;
  try {
    await access.org(grant.org.slug, "org:write");
  } catch (err) {
    if (!isAppError(err)) throw err;
    mayShare = false;
  }
  return { userId: actor.userId, label: actor.label, mayShare };
}

export async function savedSearchesResponse(db: Db, grant: OrgGrant) {
  return (await listSavedSearches(db, grant.org.id, grant.userId)).map(serialize);
}

const CreateBody = z.object({
  name: z.string(),
  query: z.string(),
  sort: z.enum(["date", "new", "freq", "user", ...ISSUE_SORTS]).optional(),
  visibility: z.enum(["owner", "organization"]).default("owner"),
});

const SORTS: Record<string, (typeof ISSUE_SORTS)[number]> = {
  date: "last_seen",
  new: "first_seen",
  freq: "events",
  user: "users",
};

export async function createSavedSearchResponse(
  db: Db,
  access: ApiAccess,
  grant: OrgGrant,
  request: Request,
) {
  const body = await jsonBody(request, CreateBody);
  const actor = await searchActor(db, access, grant);
  const created = await createSavedSearch(db, grant.org.id, actor, {
    name: body.name.trim().slice(0, 200),
    query: body.query,
    sort: body.sort ? (SORTS[body.sort] ?? (body.sort as (typeof ISSUE_SORTS)[number])) : undefined,
    shared: body.visibility === "organization",
  });
  return Response.json(serialize(created), { status: 201 });
}

export async function deleteSavedSearchResponse(
  db: Db,
  access: ApiAccess,
  grant: OrgGrant,
  id: number,
) {
  await deleteSavedSearch(db, grant.org.id, await searchActor(db, access, grant), id);
  return new Response(null, { status: 204 });
}
