/**
 * Monitor schedules: when the next check-in is expected. Crontab is the classic five fields
 * (minute hour day-of-month month day-of-week) with `*`, lists, ranges, steps and the
 * `@hourly`-style macros, evaluated in the monitor's IANA time zone; intervals are a count
 * of minutes, hours, days, weeks, months or years after the previous check-in.
 */
export type Schedule =
  | { type: "crontab"; value: string; timezone?: string | null }
  | { type: "interval"; value: number; unit: IntervalUnit };

export const INTERVAL_UNITS = ["minute", "hour", "day", "week", "month", "year"] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

const MINUTE = 60_000;

interface Field {
  min: number;
  max: number;
}
const FIELDS: Field[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12 },
  { min: 0, max: 7 },
];
const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

export interface Crontab {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Whether day-of-month and day-of-week were restricted: cron matches either when both are. */
  daysRestricted: boolean;
  weekdaysRestricted: boolean;
}

/** Parses a crontab expression; undefined when it is not one. */
export function parseCrontab(expression: string): Crontab | undefined {
  const text = MACROS[expression.trim().toLowerCase()] ?? expression.trim();
  const parts = text.split(/\s+/);
  if (parts.length !== 5 || text.length > 200) return undefined;
  const sets: Set<number>[] = [];
  for (let i = 0; i < 5; i++) {
    const set = parseField(parts[i] as string, FIELDS[i] as Field);
    if (!set) return undefined;
    sets.push(set);
  }
  const [minutes, hours, days, months, weekdays] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  // 7 is Sunday too.
  if (weekdays.delete(7)) weekdays.add(0);
  return {
    minutes,
    hours,
    days,
    months,
    weekdays,
    daysRestricted: !parts[2]?.startsWith("*"),
    weekdaysRestricted: !parts[4]?.startsWith("*"),
  };
}

function parseField(text: string, { min, max }: Field): Set<number> | undefined {
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const m = /^(\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/.exec(part);
    if (!m) return undefined;
    let from = min;
    let to = max;
    if (m[2] !== undefined) {
      from = Number(m[2]);
      // "5/15" means from 5 to the end in steps of 15.
      to = m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    }
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < min || to > max || from > to || step < 1) return undefined;
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

/** Wall-clock fields of an instant in a time zone, as a Date whose UTC fields hold them. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function wallClock(ms: number, timezone: string): Date {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timezone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) p[part.type] = Number(part.value);
  return new Date(
    Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second),
  );
}

/** Whether Intl knows the zone; unknown zones fall back to UTC. */
export function validTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** The offset of a zone at an instant, in ms (wall − UTC). */
function offsetAt(ms: number, timezone: string): number {
  return wallClock(ms, timezone).getTime() - Math.floor(ms / 1000) * 1000;
}

/** The first minute strictly after `afterMs` that the crontab matches, in its zone. */
export function nextCronTick(cron: Crontab, afterMs: number, timezone = "UTC"): number | undefined {
  const zone = validTimezone(timezone) ? timezone : "UTC";
  const wall = wallClock(afterMs, zone);
  wall.setUTCSeconds(0, 0);
  wall.setUTCMinutes(wall.getUTCMinutes() + 1);
  // Skips whole months, days and hours that cannot match; bounded to about five years.
  for (let steps = 0; steps < 200_000; steps++) {
    if (!cron.months.has(wall.getUTCMonth() + 1)) {
      wall.setUTCMonth(wall.getUTCMonth() + 1, 1);
      wall.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!dayMatches(cron, wall)) {
      wall.setUTCDate(wall.getUTCDate() + 1);
      wall.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!cron.hours.has(wall.getUTCHours())) {
      wall.setUTCHours(wall.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!cron.minutes.has(wall.getUTCMinutes())) {
      wall.setUTCMinutes(wall.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    // Wall time back to an instant: subtract the zone's offset at that moment.
    const guess = wall.getTime() - offsetAt(wall.getTime(), zone);
    const instant = wall.getTime() - offsetAt(guess, zone);
    if (instant > afterMs) return instant;
    wall.setUTCMinutes(wall.getUTCMinutes() + 1, 0, 0);
  }
  return undefined;
}

function dayMatches(cron: Crontab, wall: Date): boolean {
  const dom = cron.days.has(wall.getUTCDate());
  const dow = cron.weekdays.has(wall.getUTCDay());
  if (cron.daysRestricted && cron.weekdaysRestricted) return dom || dow;
  return dom && dow;
}

/**
 * When the check-in after one at `lastMs` is expected. Like Sentry, the reference is the
 * check-in's minute, so a job that checks in a few seconds after its tick expects the next.
 */
export function nextExpected(schedule: Schedule, lastMs: number): number | undefined {
  const minute = Math.floor(lastMs / MINUTE) * MINUTE;
  if (schedule.type === "crontab") {
    const cron = parseCrontab(schedule.value);
    return cron ? nextCronTick(cron, minute, schedule.timezone ?? "UTC") : undefined;
  }
  const n = schedule.value;
  if (!Number.isInteger(n) || n < 1) return undefined;
  const d = new Date(minute);
  switch (schedule.unit) {
    case "minute":
      return minute + n * MINUTE;
    case "hour":
      return minute + n * 60 * MINUTE;
    case "day":
      return minute + n * 1440 * MINUTE;
    case "week":
      return minute + n * 7 * 1440 * MINUTE;
    case "month":
      return d.setUTCMonth(d.getUTCMonth() + n);
    case "year":
      return d.setUTCFullYear(d.getUTCFullYear() + n);
  }
}
