import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { DialectName } from "../../db/connection";
import type { Database } from "../../db/schema";
import { MAX_VALUE_LENGTH } from "./keys";
import type { Filter, Op, TextValue, TimeValue } from "./parse";
import type { ResolvedSearch } from "./resolve";

/**
 * A resolved search as one SQL condition on `issues`. Every filter reads the issue row or
 * probes a per-issue table by its primary key (issue_tags, issue_users, issue_bookmarks), so
 * a condition costs a few index lookups per candidate issue; free text goes through the
 * trigram index of `issue_search` (see migration 014) to a set of issue ids.
 *
 * Negation is NOT of the positive condition, with NULLs folded away first, so `!assigned:me`
 * also finds unassigned issues and `!is:regressed` the ones never regressed.
 */
type Eb = ExpressionBuilder<Database, "issues">;
type Cond = Expression<SqlBool>;

export function searchCondition(eb: Eb, search: ResolvedSearch, dialect: DialectName): Cond {
  const parts: Cond[] = search.query.filters.map((f) => {
    const c = filterCondition(eb, f, search, dialect);
    return f.negated ? eb.not(c) : c;
  });
  const text = search.query.text;
  if (text && !matchesEverything(text)) parts.push(textCondition(eb, text, dialect));
  return parts.length === 0 ? sql<SqlBool>`1 = 1` : eb.and(parts);
}

const FALSE = sql<SqlBool>`1 = 0`;
const TRUE = sql<SqlBool>`1 = 1`;

function filterCondition(eb: Eb, f: Filter, s: ResolvedSearch, dialect: DialectName): Cond {
  switch (f.kind) {
    case "is":
      return eb.or(f.values.map((v) => isCondition(eb, v, s)));
    case "assigned":
      return eb.or(
        f.values.map((v) => {
          if (v === "none") return eb("issues.assignee_user_id", "is", null);
          const id = v === "me" ? s.userId : s.users.get(v.email);
          return id ? eb(sql`coalesce(issues.assignee_user_id, '')`, "=", id) : FALSE;
        }),
      );
    case "bookmarks": {
      const ids = f.values
        .map((v) => (v === "me" ? s.userId : s.users.get(v.email)))
        .filter((id): id is string => Boolean(id));
      if (ids.length === 0) return FALSE;
      return eb.exists(
        eb
          .selectFrom("issue_bookmarks")
          .select(sql.lit(1).as("one"))
          .whereRef("issue_bookmarks.issue_id", "=", "issues.id")
          .where("issue_bookmarks.user_id", "in", ids),
      );
    }
    case "level":
      return eb.or(f.values.map((v) => textMatch(sql.ref("issues.level"), v, dialect)));
    case "tag": {
      const values = f.values.flatMap((v): TextValue[] =>
        v === "latest" ? s.latestReleases.map((r) => ({ parts: [r] })) : [v],
      );
      if (values.length === 0) return FALSE;
      return eb.exists(
        eb
          .selectFrom("issue_tags")
          .select(sql.lit(1).as("one"))
          .whereRef("issue_tags.issue_id", "=", "issues.id")
          .where("issue_tags.key", "=", f.key)
          .where((t) =>
            t.or(values.map((v) => textMatch(sql.ref("issue_tags.value"), v, dialect, true))),
          ),
      );
    }
    case "tag_empty":
      return eb.not(tagExists(eb, f.key));
    case "user":
      return eb.exists(
        eb
          .selectFrom("issue_users")
          .select(sql.lit(1).as("one"))
          .whereRef("issue_users.issue_id", "=", "issues.id")
          .where((u) => u.or(f.values.map((v) => userMatch(f.field, v, dialect)))),
      );
    case "has":
      return hasCondition(eb, f.key);
    case "time":
      return timeCondition(eb, f.field, f.value, s.now);
    case "number":
      return eb(sql.ref(`issues.${f.field}`), sqlOp(f.op), f.value);
    case "message":
      return matchesEverything(f.value) ? TRUE : textCondition(eb, f.value, dialect);
  }
}

function isCondition(eb: Eb, v: string, s: ResolvedSearch): Cond {
  switch (v) {
    case "regressed":
      return eb(sql`coalesce(issues.substatus, '')`, "=", "regressed");
    case "assigned":
      return eb("issues.assignee_user_id", "is not", null);
    case "unassigned":
      return eb("issues.assignee_user_id", "is", null);
    case "bookmarked": {
      // Sentry's is:bookmarked is the caller's bookmarks; a token without a user sees anyone's.
      let q = eb
        .selectFrom("issue_bookmarks")
        .select(sql.lit(1).as("one"))
        .whereRef("issue_bookmarks.issue_id", "=", "issues.id");
      if (s.userId) q = q.where("issue_bookmarks.user_id", "=", s.userId);
      return eb.exists(q);
    }
    default:
      return eb("issues.status", "=", v as "unresolved");
  }
}

function tagExists(eb: Eb, key: string): Cond {
  return eb.exists(
    eb
      .selectFrom("issue_tags")
      .select(sql.lit(1).as("one"))
      .whereRef("issue_tags.issue_id", "=", "issues.id")
      .where("issue_tags.key", "=", key),
  );
}

function usersExist(eb: Eb, where?: Cond): Cond {
  let q = eb
    .selectFrom("issue_users")
    .select(sql.lit(1).as("one"))
    .whereRef("issue_users.issue_id", "=", "issues.id");
  if (where) q = q.where(() => where);
  return eb.exists(q);
}

function hasCondition(eb: Eb, key: string): Cond {
  switch (key) {
    case "level":
    case "message":
    case "title":
      return TRUE;
    case "assigned":
    case "assignee":
      return eb("issues.assignee_user_id", "is not", null);
    case "user":
      return usersExist(eb);
    case "user.id":
      return usersExist(eb, sql<SqlBool>`issue_users.user_key like 'id:%'`);
    case "user.email":
      return usersExist(
        eb,
        sql<SqlBool>`(issue_users.email is not null or issue_users.user_key like 'email:%')`,
      );
    case "user.username":
      return usersExist(
        eb,
        sql<SqlBool>`(issue_users.username is not null or issue_users.user_key like 'username:%')`,
      );
    default:
      return tagExists(eb, key);
  }
}

/**
 * user.id is the key's own (`id:<id>`); email and username are kept beside the key since
 * migration 014, and read from the key for users first seen before it.
 */
function userMatch(field: "id" | "email" | "username", v: TextValue, dialect: DialectName): Cond {
  const keyed = textMatch(sql.ref("issue_users.user_key"), prefixed(`${field}:`, v), dialect);
  if (field === "id") return keyed;
  const column = textMatch(sql.ref(`issue_users.${field}`), v, dialect);
  return sql<SqlBool>`(${column} or ${keyed})`;
}

function prefixed(prefix: string, v: TextValue): TextValue {
  return { parts: [prefix + (v.parts[0] ?? ""), ...v.parts.slice(1)] };
}

function timeCondition(eb: Eb, field: "first_seen" | "last_seen", v: TimeValue, now: number): Cond {
  const col = sql.ref(`issues.${field}`);
  if (v.type === "relative") {
    return v.direction === "newer" ? eb(col, ">=", now - v.ms) : eb(col, "<=", now - v.ms);
  }
  if (v.op === "=") return eb.and([eb(col, ">=", v.from), eb(col, "<", v.to)]);
  return eb(col, sqlOp(v.op), v.from);
}

function sqlOp(op: Op): ">" | ">=" | "<" | "<=" | "=" {
  return op;
}

export function matchesEverything(v: TextValue): boolean {
  return v.parts.every((p) => p === "");
}

/**
 * A value against a column: equality when it has no wildcard, else a pattern. Patterns are
 * case-sensitive on both dialects (GLOB on SQLite, LIKE on PostgreSQL), as equality is.
 */
function textMatch(
  column: ReturnType<typeof sql.ref>,
  v: TextValue,
  dialect: DialectName,
  cut = false,
): Cond {
  if (v.parts.length === 1) {
    const value = v.parts[0] ?? "";
    return sql<SqlBool>`${column} = ${cut ? value.slice(0, MAX_VALUE_LENGTH) : value}`;
  }
  return dialect === "postgres"
    ? sql<SqlBool>`${column} like ${likePattern(v.parts)}`
    : sql<SqlBool>`${column} glob ${globPattern(v.parts)}`;
}

/**
 * Free text: issues whose search terms contain the phrase (lowercase, wildcards kept), via
 * the trigram index: FTS5 with GLOB on SQLite, pg_trgm with LIKE on PostgreSQL.
 */
function textCondition(eb: Eb, v: TextValue, dialect: DialectName): Cond {
  const parts = ["", ...v.parts.map((p) => p.toLowerCase()), ""];
  if (dialect === "postgres") {
    return eb(
      "issues.id",
      "in",
      eb
        .selectFrom("issue_search")
        .select("issue_search.issue_id")
        .where(sql<SqlBool>`body like ${likePattern(parts)}`),
    );
  }
  return eb(
    "issues.id",
    "in",
    eb
      .selectFrom("issue_search")
      .select("issue_search.issue_id")
      .where(
        "issue_search.id",
        "in",
        sql<number>`(select rowid from issue_search_fts where body glob ${globPattern(parts)})`,
      ),
  );
}

/** Parts joined by `*`, each part's own *, ? and [ made literal as [*], [?] and [[]. */
export function globPattern(parts: string[]): string {
  return parts.map((p) => p.replace(/[*?[]/g, (c) => `[${c}]`)).join("*");
}

/** Parts joined by `%`, each part's own %, _ and \ escaped with PostgreSQL's default \. */
export function likePattern(parts: string[]): string {
  return parts.map((p) => p.replace(/[\\%_]/g, (c) => `\\${c}`)).join("%");
}
