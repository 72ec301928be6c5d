import { z } from "zod";
import type { OrgGrant } from "../api/access";
import { serializeIssue } from "../api/serialize";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { type IssueListItem, listOrgIssues } from "./list-query";
import { DEFAULT_QUERY, type IssueSort } from "./schemas";
import { prepareSearch } from "./search/resolve";
import { quoteValue } from "./search/suggest";
import { issueSparklines, PERIODS } from "./sparklines";

/**
 * `GET /api/0/organizations/<org>/issues/` and `GET /api/0/projects/<org>/<project>/issues/`
 * in Sentry's shape: the search language in `query` (default is:unresolved; empty: every
 * issue), `project` (id or slug, may repeat; -1 or none: all), `environment` (may repeat),
 * `sort` (date, new, freq, user), `limit` (≤ 100), `cursor`, `statsPeriod` (24h, 14d, or
 * empty for none). The total is in `X-Hits`, the neighbouring pages in `Link`, as Sentry's.
 * The issue list page reads the same function, so the two agree.
 */
const SENTRY_SORTS: Record<string, IssueSort> = {
  date: "last_seen",
  new: "first_seen",
  freq: "events",
  user: "users",
  last_seen: "last_seen",
  first_seen: "first_seen",
  events: "events",
  users: "users",
};

const IssueQuery = z.object({
  query: z.string().max(5000).optional(),
  project: z
    .array(z.string().regex(/^(-1|[A-Za-z0-9._-]{1,100})$/, "must be a project id or slug"))
    .max(100),
  environment: z.array(z.string().min(1).max(200)).max(50),
  sort: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s === "") return "last_seen" as IssueSort;
      const sort = SENTRY_SORTS[s];
      if (!sort) ctx.addIssue({ code: "custom", message: "must be date, new, freq or user" });
      return sort as IssueSort;
    }),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z
    .string()
    .regex(/^\d{1,16}_\d{1,16}:[01]$/, "invalid cursor")
    .optional(),
  statsPeriod: z.enum(["24h", "14d", ""]).default("24h"),
  id: z.array(z.string().regex(/^\d{1,15}$/, "must be an issue id")).max(1000),
});
export type IssueQuery = z.infer<typeof IssueQuery>;

export function parseIssueQuery(params: URLSearchParams): IssueQuery {
  const parsed = IssueQuery.safeParse({
    query: params.get("query") ?? undefined,
    project: params.getAll("project").filter((p) => p !== ""),
    environment: params.getAll("environment").filter((e) => e !== ""),
    sort: params.get("sort") ?? undefined,
    limit: params.get("limit") ?? params.get("per_page") ?? undefined,
    cursor: params.get("cursor") ?? undefined,
    statsPeriod: params.get("statsPeriod") ?? undefined,
    id: params.getAll("id"),
  });
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AppError("bad_request", `${problem?.path.join(".") || "query"}: ${problem?.message}`);
  }
  return parsed.data;
}

/** The projects a request names among the organization's: all for none or -1; 404 for a stranger. */
export async function projectsOf(
  db: Db,
  orgId: number,
  wanted: string[],
): Promise<{ all: { id: number; slug: string }[]; ids?: number[] }> {
  const all = (
    await db.kysely
      .selectFrom("projects")
      .select(["id", "slug"])
      .where("organization_id", "=", orgId)
      .orderBy("id")
      .execute()
  ).map((p) => ({ id: Number(p.id), slug: p.slug }));
  if (wanted.length === 0 || wanted.includes("-1")) return { all };
  const ids: number[] = [];
  for (const w of wanted) {
    const p = all.find((x) => String(x.id) === w || x.slug === w);
    if (!p) throw new AppError("not_found", `project ${w.slice(0, 100)} not found`);
    ids.push(p.id);
  }
  return { all, ids: [...new Set(ids)] };
}

/** The request's search text: `query` (default is:unresolved) and its environments. */
export function searchText(q: Pick<IssueQuery, "query" | "environment">): string {
  const base = (q.query ?? DEFAULT_QUERY).trim();
  if (q.environment.length === 0) return base;
  return `${base} environment:[${q.environment.map(quoteValue).join(", ")}]`.trim();
}

export async function issuesResponse(
  db: Db,
  grant: OrgGrant,
  url: URL,
  q: IssueQuery,
  fixedProjectIds?: number[],
): Promise<Response> {
  const projects = await projectsOf(db, grant.org.id, q.project);
  const projectIds = fixedProjectIds ?? projects.ids;
  const search = await prepareSearch(db, searchText(q), {
    orgId: grant.org.id,
    projectIds: projectIds ?? projects.all.map((p) => p.id),
    userId: grant.userId,
    now: Date.now(),
  });
  const [cursor, prev] = q.cursor?.split(":") ?? [];
  const page = await listOrgIssues(db, {
    orgId: grant.org.id,
    projectIds,
    search,
    sort: q.sort,
    limit: q.limit,
    ...(cursor ? (prev === "1" ? { before: cursor } : { after: cursor }) : {}),
  });
  const slugs = new Map(projects.all.map((p) => [p.id, p.slug]));
  const bookmarked = await bookmarkedBy(
    db,
    grant.userId,
    page.items.map((i) => i.id),
  );
  const stats = q.statsPeriod
    ? await issueSparklines(
        db,
        page.items.map((i) => i.id),
        q.statsPeriod,
      )
    : undefined;
  const rows = await issueRows(
    db,
    page.items.map((i) => i.id),
  );
  const body = page.items.map((item) => {
    const row = rows.get(item.id);
    const projectId = row?.project_id ?? 0;
    const issue = row
      ? serializeIssue(row, { id: projectId, slug: slugs.get(projectId) ?? item.projectSlug })
      : summaryOf(item);
    return {
      ...issue,
      isBookmarked: bookmarked.has(item.id),
      ...(stats && q.statsPeriod
        ? { stats: { [q.statsPeriod]: statsSeries(stats.get(item.id) ?? [], q.statsPeriod) } }
        : {}),
    };
  });
  const headers = new Headers({ "X-Hits": String(page.total) });
  const link = (cursorValue: string | undefined, rel: "previous" | "next", isPrev: boolean) => {
    const next = new URL(url);
    const value = cursorValue ? `${cursorValue}:${isPrev ? 1 : 0}` : "";
    next.searchParams.set("cursor", value);
    return `<${next.toString()}>; rel="${rel}"; results="${cursorValue ? "true" : "false"}"; cursor="${value}"`;
  };
  headers.set("Link", `${link(page.before, "previous", true)}, ${link(page.after, "next", false)}`);
  return Response.json(body, { headers });
}

async function issueRows(db: Db, ids: number[]) {
  if (ids.length === 0) return new Map();
  const rows = await db.kysely.selectFrom("issues").selectAll().where("id", "in", ids).execute();
  return new Map(
    rows.map((r) => [Number(r.id), { ...r, id: Number(r.id), project_id: Number(r.project_id) }]),
  );
}

function summaryOf(item: IssueListItem) {
  return { id: String(item.id), title: item.title, status: item.status };
}

async function bookmarkedBy(db: Db, userId: string | null, ids: number[]): Promise<Set<number>> {
  if (!userId || ids.length === 0) return new Set();
  const rows = await db.kysely
    .selectFrom("issue_bookmarks")
    .select("issue_id")
    .where("user_id", "=", userId)
    .where("issue_id", "in", ids)
    .execute();
  return new Set(rows.map((r) => Number(r.issue_id)));
}

/** Sentry's stats: [[bucket start in seconds, count], …]. */
function statsSeries(counts: number[], period: "24h" | "14d"): [number, number][] {
  const { buckets, bucketMs } = PERIODS[period];
  const end = (Math.floor(Date.now() / bucketMs) + 1) * bucketMs;
  const start = end - buckets * bucketMs;
  return counts.map((n, i) => [Math.floor((start + i * bucketMs) / 1000), n]);
}
