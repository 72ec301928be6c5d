import { sql } from "kysely";
import type { Db } from "../db/connection";
import { accountsDb } from "./tables";

/**
 * Fixed-window counters in the database, so every process of an installation shares them.
 * Counting and checking is one statement (an upsert that returns the new count), so parallel
 * attempts cannot all slip past a stale read.
 */
export interface RateLimitRule {
  max: number;
  windowMs: number;
  /**
   * Growing lockouts: going over `max` locks the key for `windowMs` times 2 to the power of
   * the lockouts before (up to `maxLockoutMs`), after which a fresh window of `max` begins.
   * Without it, a key is free again when its window ends.
   */
  maxLockoutMs?: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  retryAfterMs: number;
}

/** Longer than any window or lockout in use; older rows are dead weight. */
const PRUNE_AFTER_MS = 7 * 24 * 60 * 60_000;

export async function consumeRateLimit(
  db: Db,
  key: string,
  rule: RateLimitRule,
  now = Date.now(),
): Promise<RateLimitDecision> {
  const expired = sql<boolean>`auth_rate_limits.window_start <= ${now - rule.windowMs}`;
  const row = await accountsDb(db)
    .insertInto("auth_rate_limits")
    .values({ key, hits: 1, window_start: now })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        hits: sql<number>`case when ${expired} then 1 else auth_rate_limits.hits + 1 end`,
        window_start: sql<number>`case when ${expired} then ${now} else auth_rate_limits.window_start end`,
      }),
    )
    .returning(["hits", "window_start", "lockouts", "locked_until"])
    .executeTakeFirstOrThrow();
  // Keys are per address and per email tried, so the table would otherwise only grow.
  if (Math.random() < 0.01) await pruneRateLimits(db, now - PRUNE_AFTER_MS);
  const hits = Number(row.hits);
  const lockedUntil = row.locked_until === null ? 0 : Number(row.locked_until);
  if (lockedUntil > now) return { allowed: false, retryAfterMs: lockedUntil - now };
  if (hits <= rule.max) return { allowed: true, retryAfterMs: 0 };
  if (rule.maxLockoutMs === undefined)
    return { allowed: false, retryAfterMs: Number(row.window_start) + rule.windowMs - now };
  return { allowed: false, retryAfterMs: await lockOut(db, key, rule, Number(row.lockouts), now) };
}

/**
 * Starts the key's next lockout; its window begins afresh when the lockout ends. Conditional
 * on the lockouts seen, so of parallel attempts over the limit only one doubles the lockout.
 */
async function lockOut(
  db: Db,
  key: string,
  rule: RateLimitRule,
  lockouts: number,
  now: number,
): Promise<number> {
  const lockMs = Math.min(rule.windowMs * 2 ** lockouts, rule.maxLockoutMs ?? rule.windowMs);
  await accountsDb(db)
    .updateTable("auth_rate_limits")
    .set({
      lockouts: lockouts + 1,
      locked_until: now + lockMs,
      hits: 0,
      window_start: now + lockMs,
    })
    .where("key", "=", key)
    .where("lockouts", "=", lockouts)
    .execute();
  return lockMs;
}

/** Forget a key's count (a successful sign-in clears its account's failures). */
export async function clearRateLimit(db: Db, key: string): Promise<void> {
  await accountsDb(db).deleteFrom("auth_rate_limits").where("key", "=", key).execute();
}

/** Take back one counted hit (a successful attempt should not count against its address). */
export async function refundRateLimit(db: Db, key: string): Promise<void> {
  await accountsDb(db)
    .updateTable("auth_rate_limits")
    .set({ hits: sql<number>`hits - 1` })
    .where("key", "=", key)
    .where("hits", ">", 0)
    .execute();
}

async function pruneRateLimits(db: Db, olderThan: number): Promise<void> {
  await accountsDb(db)
    .deleteFrom("auth_rate_limits")
    .where("window_start", "<", olderThan)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", olderThan)]))
    .execute();
}
