import type { ColumnType, Kysely } from "kysely";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import type { Role } from "./permissions";

/**
 * Types of the tables migration 002 creates. better-auth owns `user`, `session`, `account`
 * and `verification` (camelCase columns, string ids); only the `user` columns Faultline reads
 * are typed here. Times of our own tables are integer milliseconds, like the rest of the schema.
 */
// A type, not an interface: Kysely's withTables wants an indexable record.
export type AccountTables = {
  user: AuthUserTable;
  members: MemberTable;
  auth_rate_limits: AuthRateLimitTable;
  instance_settings: InstanceSettingTable;
};

export interface AuthUserTable {
  id: string;
  name: string;
  email: string;
}

export interface MemberTable {
  organization_id: number;
  user_id: string;
  role: Role;
  created_at: number;
}

export interface AuthRateLimitTable {
  key: string;
  hits: number;
  window_start: number;
  /** Migration 032: lockouts so far and the end of the current one (growing lockouts). */
  lockouts: ColumnType<number, number | undefined, number>;
  locked_until: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Installation-wide values: the generated auth secret, when setup was completed. */
export interface InstanceSettingTable {
  name: string;
  value: string;
}

export type AccountsDatabase = Database & AccountTables;

export function accountsDb(db: Db): Kysely<AccountsDatabase> {
  return db.kysely.withTables<AccountTables>();
}
