import { isTransientDbError } from "./transient-errors";

/**
 * While the database is away, every request, batch and loop fails the same way, hundreds of
 * times a second, each with a stack trace and the server's error fields: that buries the one
 * line that matters and costs the CPU and disk an outage can least spare. A database that is
 * away or busy (isTransientDbError) is logged as one line per place and reason every few
 * seconds, with how many were left out; any other error is logged in full, every time.
 */
const INTERVAL_MS = 5000;
/** Reasons can carry addresses and ports; keep the table small whatever comes. */
const MAX_KEYS = 200;
const lastLogged = new Map<string, { at: number; skipped: number }>();

export function logDbFailure(where: string, err: unknown, now = Date.now()): void {
  if (!isTransientDbError(err)) {
    console.error(where, err);
    return;
  }
  const reason = describe(err);
  const key = `${where}\u0000${reason}`;
  const last = lastLogged.get(key);
  if (last && now - last.at < INTERVAL_MS) {
    last.skipped++;
    return;
  }
  if (!last && lastLogged.size >= MAX_KEYS) lastLogged.clear();
  const skipped = last?.skipped ? ` (${last.skipped} more like it since the last line)` : "";
  console.error(`${where}: ${reason}${skipped}`);
  lastLogged.set(key, { at: now, skipped: 0 });
}

function describe(err: unknown): string {
  const { code, message } = err as { code?: unknown; message?: unknown };
  const text = typeof message === "string" && message ? message : String(err);
  return typeof code === "string" && !text.includes(code) ? `${text} [${code}]` : text;
}
