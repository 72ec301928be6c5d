/** Durations, dates and counts as the search language writes them. Pure; runs in the browser too. */

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** At most about ten years: anything longer is a typo, and stays far from overflow. */
const MAX_DURATION_MS = 3660 * 86_400_000;

/** `24h`, `7d`, `30m`, `2w`, `90s` → milliseconds. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d{1,7})([smhdw])$/.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}

const DATE_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * `2026-11-01` (that day, UTC) or `2026-11-01T10:30[:00[.000]][Z|+02:00]` (that minute or
 * second; UTC without a zone): the range [from, to) it stands for, in milliseconds.
 */
export function parseDate(text: string): { from: number; to: number } | undefined {
  const m = DATE_RE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(sec ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  let ms = Date.UTC(
    year,
    month - 1,
    day,
    hour,
    minute,
    second,
    Number((frac ?? "0").padEnd(3, "0").slice(0, 3)),
  );
  // Date.UTC rolls 2026-02-30 over into March; such a date does not exist.
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  if (zone && zone !== "Z") {
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
    if (!z) return undefined;
    const offset = (Number(z[2]) * 60 + Number(z[3])) * 60_000;
    ms -= z[1] === "+" ? offset : -offset;
  }
  const span =
    h === undefined ? 86_400_000 : sec === undefined ? 60_000 : frac === undefined ? 1000 : 1;
  return { from: ms, to: ms + span };
}

/** `100`, `1.5k`, `2m` → a whole count (k = thousand, m = million, b = billion). */
export function parseCount(text: string): number | undefined {
  const m = /^(\d{1,12}(?:\.\d{1,6})?)([kmb])?$/i.exec(text);
  if (!m) return undefined;
  const scale = { k: 1e3, m: 1e6, b: 1e9 }[(m[2] ?? "").toLowerCase() as "k" | "m" | "b"] ?? 1;
  const n = Math.round(Number(m[1]) * scale);
  return Number.isSafeInteger(n) ? n : undefined;
}
