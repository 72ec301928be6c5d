/**
 * The keys of the issue search language (Sentry's), what each takes, and the bounds every
 * query is held to. Pure data: the search box imports it in the browser for suggestions.
 */
export const MAX_QUERY_LENGTH = 1000;
export const MAX_TERMS = 20;
export const MAX_LIST_VALUES = 50;
/** As the store stage keeps them (src/ingest/store/issue-tags.ts): longer keys never match. */
export const MAX_KEY_LENGTH = 32;
export const MAX_VALUE_LENGTH = 200;

export const IS_VALUES = [
  "unresolved",
  "resolved",
  "ignored",
  "regressed",
  "assigned",
  "unassigned",
  "bookmarked",
] as const;
export type IsValue = (typeof IS_VALUES)[number];

export const LEVELS = ["fatal", "error", "warning", "info", "debug"] as const;

export type KeyKind =
  | "is"
  | "assigned"
  | "bookmarks"
  | "level"
  | "release"
  | "environment"
  | "user"
  | "has"
  | "age"
  | "time"
  | "number"
  | "message";

export interface KeySpec {
  kind: KeyKind;
  /** Shown in suggestions. */
  description: string;
  /** For `time` and `number` keys: the issues column; for `user`, the user field. */
  field?: "first_seen" | "last_seen" | "times_seen" | "user_count" | "id" | "email" | "username";
}

/** Built-in keys by their spelling in queries; any other key is a tag, as in Sentry. */
export const KEYS: Record<string, KeySpec> = {
  is: { kind: "is", description: "status: unresolved, resolved, ignored, regressed, …" },
  assigned: { kind: "assigned", description: "assignee: me, none or an email" },
  bookmarks: { kind: "bookmarks", description: "bookmarked by: me or an email" },
  level: { kind: "level", description: "fatal, error, warning, info, debug" },
  release: { kind: "release", description: "a release seen on the issue, or latest" },
  environment: { kind: "environment", description: "an environment seen on the issue" },
  "user.id": { kind: "user", field: "id", description: "a user's id" },
  "user.email": { kind: "user", field: "email", description: "a user's email" },
  "user.username": { kind: "user", field: "username", description: "a user's username" },
  has: { kind: "has", description: "issues with any value of a tag" },
  age: { kind: "age", description: "time since first seen: -24h (newer), +7d (older)" },
  firstSeen: { kind: "time", field: "first_seen", description: "first seen: -7d, >2026-11-01" },
  lastSeen: { kind: "time", field: "last_seen", description: "last seen: -7d, <2026-11-01" },
  timesSeen: { kind: "number", field: "times_seen", description: "events: >100" },
  users: { kind: "number", field: "user_count", description: "affected users: >=10" },
  message: { kind: "message", description: "text in the title, culprit, values or frames" },
};

/** Other spellings Sentry accepts for the same keys. */
export const KEY_ALIASES: Record<string, string> = {
  first_seen: "firstSeen",
  last_seen: "lastSeen",
  times_seen: "timesSeen",
  user_count: "users",
};

export function keySpec(key: string): KeySpec | undefined {
  return KEYS[KEY_ALIASES[key] ?? key];
}

/** Fixed values a key offers while typing (tags' values come from the stored tags). */
export function fixedValues(key: string): readonly string[] | undefined {
  const spec = keySpec(key);
  switch (spec?.kind) {
    case "is":
      return IS_VALUES;
    case "level":
      return LEVELS;
    case "assigned":
      return ["me", "none"];
    case "bookmarks":
      return ["me"];
    case "release":
      return ["latest"];
    case "age":
      return ["-1h", "-24h", "-7d", "+24h", "+7d", "+30d"];
    case "time":
      return ["-1h", "-24h", "-7d", "-30d"];
    case "number":
      return [">1", ">10", ">100", ">1000"];
    default:
      return undefined;
  }
}
