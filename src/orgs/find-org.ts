import type { Db } from "../db/connection";
import { AppError } from "../errors";

/** The organization's id by slug; an unknown slug is a 404 like everything not found. */
export async function orgIdOrThrow(db: Db, slug: string): Promise<number> {
  const row = await db.kysely
    .selectFrom("organizations")
    .select("id")
    .where("slug", "=", slug)
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", "organization not found");
  return row.id;
}
