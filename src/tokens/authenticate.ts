import type { Principal } from "../api/access";
import type { Db } from "../db/connection";

/**
 * The principal behind an API token that is not the operator's: an organization auth token
 * (`sntrys_…`) or a personal token (`sntryu_…`). Null for a token that is unknown, revoked
 * or expired (the API answers 401).
 */
export async function resolveApiToken(_db: Db, _token: string): Promise<Principal | null> {
  return null;
}
