import type { TimelineItem } from "./activity";
import { describeStatusDetails, parseStatusDetails, plural } from "./status-details";

/**
 * What a timeline entry says, after who did it ("Olive resolved it in release 1.2"). Data
 * fields come from our own writes but are read defensively: an odd value reads as nothing.
 */
export function describeActivity(item: TimelineItem): string {
  const d = item.data;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const details = () => {
    const parsed = parseStatusDetails(d.details ? JSON.stringify(d.details) : null);
    return parsed ? ` ${describeStatusDetails(parsed)}` : "";
  };
  switch (item.kind) {
    case "first_seen":
      return "First seen";
    case "comment":
      return "commented";
    case "assigned":
      return `assigned it to ${str(d.assigneeEmail) ?? "a member"}`;
    case "unassigned":
      return "unassigned it";
    case "resolved":
      return `resolved it${details()}`;
    case "ignored":
      return `ignored it${details() || " forever"}`;
    case "unresolved":
      switch (str(d.reason)) {
        case "ignore_count":
          return `Unresolved: ${plural(num(d.count) ?? 0, "more event")} since it was ignored`;
        case "ignore_users":
          return `Unresolved: ${plural(num(d.count) ?? 0, "more user")} since it was ignored`;
        case "ignore_until":
          return "Unresolved: the time it was ignored for has passed";
        default:
          return "unresolved it";
      }
    case "regressed": {
      const release = str(d.release);
      return release
        ? `Regressed in release ${release}`
        : "Regressed: a new event after it was resolved";
    }
    case "unmerged": {
      const events = num(d.events);
      const other = num(d.other);
      return `unmerged ${events === undefined ? "events" : plural(events, "event")}${other === undefined ? "" : ` (with issue ${other})`}`;
    }
    case "merged": {
      const count = num(d.count);
      return count
        ? `merged ${plural(count, "issue")} into this one`
        : "merged issues into this one";
    }
  }
}

/** Entries made by Faultline itself read as sentences of their own, without an actor. */
export function isSystemEntry(item: TimelineItem): boolean {
  return item.userId === null && item.kind !== "comment";
}
