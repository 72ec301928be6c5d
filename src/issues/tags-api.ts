import { z } from "zod";
import type { OrgGrant } from "../api/access";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { orgTagKeys, orgTagValues } from "./search/tag-values";
import { projectsOf } from "./search-api";

/**
 * `GET /api/0/organizations/<org>/tags/` and `…/tags/<key>/values/?query=<prefix>`, Sentry's
 * shapes; the search box suggests from them. `user.id`, `user.email` and `user.username`
 * answer from the issues' users.
 */
const TagParams = z.object({
  project: z.array(z.string().regex(/^(-1|[A-Za-z0-9._-]{1,100})$/)).max(100),
  query: z.string().max(200).default(""),
});

function params(url: URL) {
  const parsed = TagParams.safeParse({
    project: url.searchParams.getAll("project").filter((p) => p !== ""),
    query: url.searchParams.get("query") ?? undefined,
  });
  if (!parsed.success)
    throw new AppError("bad_request", `${parsed.error.issues[0]?.path.join(".")}: invalid`);
  return parsed.data;
}

export async function tagKeysResponse(db: Db, grant: OrgGrant, url: URL) {
  const p = params(url);
  const { ids } = await projectsOf(db, grant.org.id, p.project);
  const keys = await orgTagKeys(db, grant.org.id, ids);
  return keys.map((k) => ({ key: k.key, name: k.key, totalValues: k.values }));
}

export async function tagValuesResponse(db: Db, grant: OrgGrant, key: string, url: URL) {
  const p = params(url);
  const { ids } = await projectsOf(db, grant.org.id, p.project);
  const values = await orgTagValues(db, grant.org.id, key, p.query, ids);
  return values.map((v) => ({
    key,
    name: v.value,
    value: v.value,
    count: v.count,
    firstSeen: v.firstSeen ? new Date(v.firstSeen).toISOString() : null,
    lastSeen: v.lastSeen ? new Date(v.lastSeen).toISOString() : null,
  }));
}
