import type { Schedule } from "./schedule";

/**
 * A schedule in words, as the crons page shows it: "every day at 02:00 Europe/Berlin",
 * "every 10 minutes", "every Monday at 09:30 UTC". Crontabs with no simple reading are
 * shown as the expression with their time zone.
 */
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const num = (s: string) => (/^\d{1,2}$/.test(s) ? Number(s) : undefined);
const pad = (n: number) => String(n).padStart(2, "0");

export function describeSchedule(schedule: Schedule | undefined): string {
  if (!schedule) return "no schedule";
  if (schedule.type === "interval") {
    const { value, unit } = schedule;
    return value === 1 ? `every ${unit}` : `every ${value} ${unit}s`;
  }
  const tz = schedule.timezone || "UTC";
  const expr = MACROS[schedule.value.trim().toLowerCase()] ?? schedule.value.trim();
  const [min, hour, dom, month, dow] = expr.split(/\s+/) as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (expr.split(/\s+/).length !== 5) return `cron ${schedule.value} (${tz})`;
  const m = num(min);
  const h = num(hour);
  const step = /^\*\/(\d{1,2})$/.exec(min);
  const hourStep = /^\*\/(\d{1,2})$/.exec(hour);
  const everyDay = dom === "*" && month === "*" && dow === "*";
  if (min === "*" && hour === "*" && everyDay) return "every minute";
  if (step && hour === "*" && everyDay) return `every ${step[1]} minutes`;
  if (m !== undefined && hour === "*" && everyDay)
    return m === 0 ? "every hour" : `every hour at minute ${m}`;
  if (m !== undefined && hourStep && everyDay)
    return `every ${hourStep[1]} hours at minute ${m} ${tz}`;
  if (m === undefined || h === undefined) return `cron ${schedule.value} (${tz})`;
  const at = `at ${pad(h)}:${pad(m)} ${tz}`;
  if (everyDay) return `every day ${at}`;
  const wd = num(dow);
  if (dom === "*" && month === "*" && wd !== undefined) return `every ${WEEKDAYS[wd % 7]} ${at}`;
  if (dom === "*" && month === "*" && dow === "1-5") return `every weekday ${at}`;
  const d = num(dom);
  if (d !== undefined && month === "*" && dow === "*") return `on day ${d} of every month ${at}`;
  return `cron ${schedule.value} (${tz})`;
}
