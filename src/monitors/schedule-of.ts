import type { MonitorTable } from "../db/schema";
import { INTERVAL_UNITS, type IntervalUnit, type Schedule } from "./schedule";

/** A monitor row's schedule, or undefined when it has none (or one no longer understood). */
export function scheduleOf(
  row: Pick<MonitorTable, "schedule_type" | "schedule" | "schedule_unit" | "timezone">,
): Schedule | undefined {
  if (!row.schedule) return undefined;
  if (row.schedule_type === "crontab")
    return { type: "crontab", value: row.schedule, timezone: row.timezone };
  if (
    row.schedule_type === "interval" &&
    INTERVAL_UNITS.includes(row.schedule_unit as IntervalUnit)
  )
    return {
      type: "interval",
      value: Number(row.schedule),
      unit: row.schedule_unit as IntervalUnit,
    };
  return undefined;
}
