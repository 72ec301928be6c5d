import { z } from "zod";
import { MAX_COMMENT_LENGTH } from "./comments";
import { issueIdSchema } from "./detail-schemas";
import type { StatusChange } from "./status-change";

/** The issue page's team forms: status with a condition, assignment, comments. */
const count = z.coerce
  .number("Enter a number")
  .int("Enter a whole number")
  .min(1, "Enter at least 1")
  .max(1_000_000_000, "Enter at most 1,000,000,000");
/** Ignore for up to a year. */
const minutes = z.coerce
  .number("Choose a duration")
  .int()
  .min(1, "Choose a duration")
  .max(525_600, "Ignore for at most a year");
const commentId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const resolveSchema = z
  .object({
    issueId: issueIdSchema,
    resolution: z.enum(["now", "next", "release"]).default("now"),
    release: z.string().trim().max(200, "A release name is at most 200 characters").optional(),
  })
  .refine((v) => v.resolution !== "release" || (v.release ?? "") !== "", {
    message: "Choose the release the fix is in",
    path: ["release"],
  })
  .transform(({ issueId, resolution, release }) => ({
    issueId,
    change: {
      status: "resolved",
      inRelease:
        resolution === "now"
          ? undefined
          : resolution === "next"
            ? { mode: "next" }
            : { mode: "release", release: release as string },
    } as StatusChange,
  }));

export const ignoreSchema = z
  .object({
    issueId: issueIdSchema,
    until: z.enum(["forever", "count", "users", "duration"]).default("forever"),
    count: z.string().optional(),
    users: z.string().optional(),
    minutes: z.string().optional(),
  })
  .transform(({ issueId, until, count: c, users: u, minutes: m }, ctx) => {
    const fail = (message: string) => {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    };
    if (until === "forever") return { issueId, change: { status: "ignored" } as StatusChange };
    if (until === "duration") {
      const parsed = minutes.safeParse(m);
      if (!parsed.success) return fail(parsed.error.issues[0]?.message ?? "Choose a duration");
      return {
        issueId,
        change: {
          status: "ignored",
          until: { kind: "duration", minutes: parsed.data },
        } as StatusChange,
      };
    }
    const parsed = count.safeParse(until === "users" ? u : c);
    if (!parsed.success) return fail(parsed.error.issues[0]?.message ?? "Enter a number");
    return {
      issueId,
      change: { status: "ignored", until: { kind: until, count: parsed.data } } as StatusChange,
    };
  });

export const assignSchema = z.object({
  issueId: issueIdSchema,
  /** A member's user id or email; empty for nobody. */
  assignee: z.string().trim().max(320),
});

const commentText = z
  .string()
  .trim()
  .min(1, "Write something first")
  .max(MAX_COMMENT_LENGTH, `A comment may be at most ${MAX_COMMENT_LENGTH} characters`);

export const addCommentSchema = z.object({ issueId: issueIdSchema, text: commentText });
export const editCommentSchema = z.object({ issueId: issueIdSchema, commentId, text: commentText });
export const deleteCommentSchema = z.object({ issueId: issueIdSchema, commentId });

/** Durations offered for "ignore for", in minutes. */
export const IGNORE_DURATIONS = [
  { minutes: 30, label: "30 minutes" },
  { minutes: 120, label: "2 hours" },
  { minutes: 360, label: "6 hours" },
  { minutes: 1440, label: "24 hours" },
  { minutes: 10_080, label: "1 week" },
  { minutes: 43_200, label: "30 days" },
] as const;
