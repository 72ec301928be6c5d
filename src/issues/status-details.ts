import { z } from "zod";

/**
 * The condition a resolved or ignored issue waits on, kept as JSON in `issues.status_details`
 * and checked by the store stage (src/ingest/store/issue-status.ts) when events arrive:
 *
 * - resolved in a release: an event of a later release reopens it as a regression;
 * - ignored until N more events, N more users, or a time: then it is unresolved again.
 *
 * Plain resolved (any new event regresses it), ignored forever and unresolved have none.
 */
const inRelease = z.object({
  kind: z.literal("resolved_in_release"),
  /**
   * next: the fix ships in the release after `release` (the latest when resolved; null when
   * the project had none), so events of `release` or older keep it resolved. release: the
   * fix is in `release`, so events of `release` or newer reopen it (Sentry's "in release").
   */
  mode: z.enum(["next", "release"]),
  release: z.string().max(200).nullable(),
  /** When `release` was first seen, or when it was resolved if that release was not seen yet. */
  releaseFirstSeen: z.number(),
});
const ignoreCount = z.object({
  kind: z.literal("ignore_count"),
  count: z.number().int().positive(),
  /** The times_seen at which it returns: times_seen when ignored + count. */
  untilTimesSeen: z.number().int(),
});
const ignoreUsers = z.object({
  kind: z.literal("ignore_users"),
  count: z.number().int().positive(),
  untilUserCount: z.number().int(),
});
const ignoreUntil = z.object({
  kind: z.literal("ignore_until"),
  /** Milliseconds since the epoch. */
  until: z.number(),
});

const statusDetails = z.discriminatedUnion("kind", [
  inRelease,
  ignoreCount,
  ignoreUsers,
  ignoreUntil,
]);
export type StatusDetails = z.infer<typeof statusDetails>;
export type ResolvedInRelease = z.infer<typeof inRelease>;

/** Stored text → details; anything unreadable counts as no condition (plain status). */
export function parseStatusDetails(text: string | null | undefined): StatusDetails | null {
  if (!text) return null;
  try {
    const parsed = statusDetails.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function serializeStatusDetails(details: StatusDetails | null): string | null {
  return details ? JSON.stringify(details) : null;
}

/** What a condition reads as, for the issue page ("until 100 more events"). */
export function describeStatusDetails(details: StatusDetails): string {
  switch (details.kind) {
    case "resolved_in_release":
      if (details.mode === "next")
        return details.release ? `in the release after ${details.release}` : "in the next release";
      return `in release ${details.release}`;
    case "ignore_count":
      return `until ${plural(details.count, "more event")}`;
    case "ignore_users":
      return `until ${plural(details.count, "more user")}`;
    case "ignore_until":
      return `until ${new Date(details.until).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  }
}

export function plural(n: number, noun: string): string {
  return `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
}
