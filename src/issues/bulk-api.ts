import { z } from "zod";
import type { ApiAccess, OrgGrant } from "../api/access";
import { jsonBody } from "../api/handler";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { actorOfGrant } from "./activity-hooks";
import { deleteIssues } from "./bulk/delete";
import { mergeIssues } from "./bulk/merge";
import type { IssueSelection } from "./bulk/selection";
import { bulkUpdateIssues } from "./bulk/update";
import { prepareSearch } from "./search/resolve";
import { type IssueQuery, projectsOf, searchText } from "./search-api";

/**
 * `PUT` and `DELETE` of `/api/0/organizations/<org>/issues/` (and of a project's issues), as
 * Sentry's bulk mutations: the issues are `id=` (repeatable) or every issue matching
 * `query=` (with `project=` and `environment=`); a request must name one or the other, so an
 * empty one never touches everything. The body of a PUT changes one thing or several:
 * `status`, `isBookmarked`, `assignedTo`, `merge`, `discard`.
 */
const UpdateBody = z.object({
  status: z.enum(["resolved", "unresolved", "ignored"]).optional(),
  isBookmarked: z.boolean().optional(),
  assignedTo: z.string().max(320).nullable().optional(),
  merge: z.union([z.boolean(), z.literal(0), z.literal(1)]).optional(),
  discard: z.boolean().optional(),
});

interface Target {
  db: Db;
  access: ApiAccess;
  grant: OrgGrant;
  url: URL;
  q: IssueQuery;
  request: Request;
  /** Set for a project's endpoint: the selection stays inside it. */
  projectIds?: number[];
}

async function selection(t: Target): Promise<IssueSelection> {
  if (t.q.id.length > 0) {
    const ids = t.q.id.map(Number);
    if (!t.projectIds) return { ids };
    // A project's endpoint acts on that project's issues only.
    const rows = await t.db.kysely
      .selectFrom("issues")
      .select("id")
      .where("id", "in", ids)
      .where("project_id", "in", t.projectIds)
      .execute();
    return { ids: rows.map((r) => Number(r.id)) };
  }
  if (t.q.query === undefined) {
    throw new AppError("bad_request", "name the issues: id=… (repeatable) or query=…");
  }
  const projects = await projectsOf(t.db, t.grant.org.id, t.q.project);
  const projectIds = t.projectIds ?? projects.ids;
  const text = searchText(t.q);
  const search = await prepareSearch(t.db, text, {
    orgId: t.grant.org.id,
    projectIds: projectIds ?? projects.all.map((p) => p.id),
    userId: t.grant.userId,
    now: Date.now(),
  });
  return { scope: { orgId: t.grant.org.id, projectIds, search }, query: text };
}

export async function bulkUpdateResponse(t: Target): Promise<Response> {
  const body = await jsonBody(t.request, UpdateBody);
  const changes = Object.keys(body).filter((k) => body[k as keyof typeof body] !== undefined);
  if (changes.length === 0) {
    throw new AppError(
      "bad_request",
      "nothing to change: send status, isBookmarked, assignedTo, merge or discard",
    );
  }
  if (body.discard) await t.access.org(t.grant.org.slug, "event:admin");
  const sel = await selection(t);
  const actor = await actorOfGrant(t.db, t.grant);
  const orgId = t.grant.org.id;
  const out: Record<string, unknown> = {};
  let matched = 0;
  if (body.merge) {
    if (!("ids" in sel)) throw new AppError("bad_request", "merge needs the issues' ids (id=…)");
    const merged = await mergeIssues(t.db, orgId, actor, sel.ids);
    out.merge = { parent: String(merged.parentId), children: merged.childIds.map(String) };
    return Response.json(out);
  }
  if (body.discard) {
    const result = await deleteIssues(t.db, orgId, actor, sel, { discard: true });
    if (result.matched === 0) return new Response(null, { status: 204 });
    return Response.json({ discard: true, deleted: result.deleted });
  }
  if (body.status) {
    const action =
      body.status === "resolved" ? "resolve" : body.status === "ignored" ? "ignore" : "unresolve";
    const result = await bulkUpdateIssues(t.db, orgId, actor, sel, { action });
    matched = result.matched;
    Object.assign(out, { status: body.status, statusDetails: {}, changed: result.changed });
  }
  if (body.isBookmarked !== undefined) {
    const result = await bulkUpdateIssues(t.db, orgId, actor, sel, {
      action: body.isBookmarked ? "bookmark" : "unbookmark",
    });
    matched = result.matched;
    Object.assign(out, { isBookmarked: body.isBookmarked, changed: result.changed });
  }
  if (body.assignedTo !== undefined) {
    const assignee = await assigneeOf(t.db, orgId, body.assignedTo);
    const result = await bulkUpdateIssues(t.db, orgId, actor, sel, {
      action: "assign",
      assigneeUserId: assignee?.id ?? null,
    });
    matched = result.matched;
    Object.assign(out, {
      assignedTo: assignee
        ? { type: "user", id: assignee.id, name: assignee.name, email: assignee.email }
        : null,
      changed: result.changed,
    });
  }
  // Sentry answers 204 when no issue matched.
  if (matched === 0) return new Response(null, { status: 204 });
  return Response.json(out);
}

export async function bulkDeleteResponse(t: Target): Promise<Response> {
  const sel = await selection(t);
  const actor = await actorOfGrant(t.db, t.grant);
  await deleteIssues(t.db, t.grant.org.id, actor, sel, { discard: false });
  return new Response(null, { status: 204 });
}

/** Sentry's `assignedTo`: "user:<id>", an email or a user id; empty or null unassigns. */
async function assigneeOf(db: Db, orgId: number, value: string | null) {
  if (value === null || value === "") return null;
  if (value.startsWith("team:"))
    throw new AppError("bad_request", "Faultline has no teams: assign a member");
  const idOrEmail = value.startsWith("user:") ? value.slice(5) : value;
  const row = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select(["user.id", "user.name", "user.email"])
    .where("members.organization_id", "=", orgId)
    .where((eb) =>
      eb.or([eb("user.id", "=", idOrEmail), eb("user.email", "=", idOrEmail.toLowerCase())]),
    )
    .executeTakeFirst();
  if (!row) throw new AppError("bad_request", "the assignee is not a member of this organization");
  return row;
}
