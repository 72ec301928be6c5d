import { z } from "zod";
import { recordAudit } from "../audit/record";
import { can, type Role } from "../auth/permissions";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { ISSUE_SORTS } from "./schemas";
import { MAX_QUERY_LENGTH } from "./search/keys";
import { describeSearchError, parseSearch } from "./search/parse";

/**
 * Saved issue searches: each user's own, and the organization's, which admins (org.write)
 * make for everyone. Only queries that parse are saved.
 */
export interface SavedSearch {
  id: number;
  name: string;
  query: string;
  sort: string | null;
  /** Organization-wide (made by an admin) rather than the user's own. */
  shared: boolean;
  createdAt: number;
}

const MAX_PER_OWNER = 100;

export const SavedSearchInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Give the search a name")
    .max(100, "Names are at most 100 characters"),
  query: z.string().trim().max(MAX_QUERY_LENGTH),
  sort: z.enum(ISSUE_SORTS).optional(),
  shared: z.boolean().default(false),
});
export type SavedSearchInput = z.infer<typeof SavedSearchInput>;

export interface SearchActor {
  /** Null for a token without a user (organization tokens, the operator). */
  userId: string | null;
  label: string;
  /** May manage the organization's searches: org.write (admins), or the org:write scope. */
  mayShare: boolean;
}

export function mayShareSearches(role: Role): boolean {
  return can(role, "org.write");
}

export async function listSavedSearches(
  db: Db,
  orgId: number,
  userId: string | null,
): Promise<SavedSearch[]> {
  const rows = await db.kysely
    .selectFrom("saved_searches")
    .selectAll()
    .where("organization_id", "=", orgId)
    .where((eb) =>
      userId
        ? eb.or([eb("user_id", "is", null), eb("user_id", "=", userId)])
        : eb("user_id", "is", null),
    )
    .orderBy("name")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    query: r.query,
    sort: r.sort,
    shared: r.user_id === null,
    createdAt: Number(r.created_at),
  }));
}

export async function createSavedSearch(
  db: Db,
  orgId: number,
  actor: SearchActor,
  input: SavedSearchInput,
): Promise<SavedSearch> {
  const parsed = parseSearch(input.query);
  if (!parsed.ok)
    throw new AppError("bad_request", `Invalid search query: ${describeSearchError(parsed.error)}`);
  if (input.shared && !actor.mayShare) {
    throw new AppError("forbidden", "only admins save searches for the whole organization");
  }
  if (!input.shared && !actor.userId) {
    throw new AppError(
      "bad_request",
      "a token without a user can only save organization-wide searches",
    );
  }
  const owner = input.shared ? null : actor.userId;
  return db.kysely.transaction().execute(async (trx) => {
    const count = await trx
      .selectFrom("saved_searches")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", orgId)
      .where((eb) => (owner ? eb("user_id", "=", owner) : eb("user_id", "is", null)))
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_PER_OWNER) {
      throw new AppError("bad_request", `at most ${MAX_PER_OWNER} saved searches`);
    }
    const now = Date.now();
    const row = await trx
      .insertInto("saved_searches")
      .values({
        organization_id: orgId,
        user_id: owner,
        name: input.name,
        query: input.query,
        sort: input.sort ?? null,
        created_by: actor.userId,
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (input.shared) {
      await recordAudit(trx, {
        orgId,
        actor: { userId: actor.userId, label: actor.label },
        action: "search.save_shared",
        target: input.name,
        details: { query: input.query },
      });
    }
    return {
      id: Number(row.id),
      name: input.name,
      query: input.query,
      sort: input.sort ?? null,
      shared: input.shared,
      createdAt: now,
    };
  });
}

/** One's own search, or (admins) an organization-wide one; anything else is not found. */
export async function deleteSavedSearch(
  db: Db,
  orgId: number,
  actor: SearchActor,
  id: number,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("saved_searches")
      .selectAll()
      .where("organization_id", "=", orgId)
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row || (row.user_id !== null && row.user_id !== actor.userId)) {
      throw new AppError("not_found", "saved search not found");
    }
    if (row.user_id === null) {
      if (!actor.mayShare)
        throw new AppError("forbidden", "only admins remove the organization's searches");
      await recordAudit(trx, {
        orgId,
        actor: { userId: actor.userId, label: actor.label },
        action: "search.delete_shared",
        target: row.name,
      });
    }
    await trx.deleteFrom("saved_searches").where("id", "=", id).execute();
  });
}
