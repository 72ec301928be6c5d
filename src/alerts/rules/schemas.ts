import { z } from "zod";
import { isPrivateWebhookHost } from "./webhook-url";

/**
 * Issue alert rules in Sentry's REST shape: `{name, environment, actionMatch, filterMatch,
 * frequency, conditions, filters, actions}`, each condition, filter and action an object with
 * Sentry's `id` where Sentry has one, and a `faultline.…` id where it has none (Discord, Teams,
 * Google Chat, Slack-compatible and the generic signed webhook). Unknown ids, numbers out of
 * range and intervals not in the list are refused with the field named.
 */

export const CONDITION = {
  firstSeen: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition",
  regression: "sentry.rules.conditions.regression_event.RegressionEventCondition",
  reappeared: "sentry.rules.conditions.reappeared_event.ReappearedEventCondition",
  frequency: "sentry.rules.conditions.event_frequency.EventFrequencyCondition",
  uniqueUsers: "sentry.rules.conditions.event_frequency.EventUniqueUserFrequencyCondition",
} as const;

export const FILTER = {
  level: "sentry.rules.filters.level.LevelFilter",
  tagged: "sentry.rules.filters.tagged_event.TaggedEventFilter",
  latestRelease: "sentry.rules.filters.latest_release.LatestReleaseFilter",
  /** Sentry's event attribute filter; Faultline knows the attribute `release`. */
  attribute: "sentry.rules.filters.event_attribute.EventAttributeFilter",
  age: "sentry.rules.filters.age_comparison.AgeComparisonFilter",
  occurrences: "sentry.rules.filters.issue_occurrences.IssueOccurrencesFilter",
} as const;

export const ACTION = {
  email: "sentry.mail.actions.NotifyEmailAction",
  /** A Slack incoming webhook (Block Kit message). */
  slack: "sentry.integrations.slack.notify_action.SlackNotifyServiceAction",
  discord: "faultline.actions.DiscordWebhookAction",
  teams: "faultline.actions.MicrosoftTeamsWebhookAction",
  googleChat: "faultline.actions.GoogleChatWebhookAction",
  slackCompatible: "faultline.actions.SlackCompatibleWebhookAction",
  /** Sentry's legacy webhook payload, signed with the rule's secret. */
  webhook: "faultline.actions.WebhookAction",
} as const;

/** Sentry's interval names and their minutes. */
export const INTERVALS = {
  "1m": 1,
  "5m": 5,
  "15m": 15,
  "1h": 60,
  "1d": 1440,
  "1w": 10080,
} as const;
export type IntervalName = keyof typeof INTERVALS;
const intervalNames = Object.keys(INTERVALS) as [IntervalName, ...IntervalName[]];

/** Sentry's level numbers (LevelFilter's `level` is one of these, as a string or a number). */
export const LEVELS = { fatal: 50, error: 40, warning: 30, info: 20, debug: 10 } as const;
const levelNumber = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .pipe(z.enum(["10", "20", "30", "40", "50"], { message: "level must be 10, 20, 30, 40 or 50" }));

const count = z.coerce
  .number({ message: "value must be a number" })
  .int("value must be a whole number")
  .min(0, "value must be at least 0")
  .max(1_000_000_000, "value must be at most 1,000,000,000");

const frequencyCondition = (id: typeof CONDITION.frequency | typeof CONDITION.uniqueUsers) =>
  z.object({
    id: z.literal(id),
    value: count,
    interval: z.enum(intervalNames, {
      message: `interval must be one of ${intervalNames.join(", ")}`,
    }),
    comparisonType: z.literal("count").optional(),
    name: z.string().optional(),
  });

export const ConditionSchema = z.discriminatedUnion(
  "id",
  [
    z.object({ id: z.literal(CONDITION.firstSeen), name: z.string().optional() }),
    z.object({ id: z.literal(CONDITION.regression), name: z.string().optional() }),
    z.object({ id: z.literal(CONDITION.reappeared), name: z.string().optional() }),
    frequencyCondition(CONDITION.frequency),
    frequencyCondition(CONDITION.uniqueUsers),
  ],
  { message: "unknown condition id" },
);
export type Condition = z.infer<typeof ConditionSchema>;

/** Sentry's MatchType codes for tags and attributes. */
export const MATCHES = ["eq", "ne", "co", "nc", "sw", "ew", "is", "ns"] as const;
export type Match = (typeof MATCHES)[number];
const matchSchema = z.enum(MATCHES, { message: `match must be one of ${MATCHES.join(", ")}` });
const text = (max: number) => z.string().max(max, `at most ${max} characters`);

export const FilterSchema = z.discriminatedUnion(
  "id",
  [
    z.object({
      id: z.literal(FILTER.level),
      match: z.enum(["eq", "gte", "lte"], { message: "match must be eq, gte or lte" }),
      level: levelNumber,
      name: z.string().optional(),
    }),
    z
      .object({
        id: z.literal(FILTER.tagged),
        key: text(200).min(1, "key is required"),
        match: matchSchema,
        value: text(200).optional().default(""),
        name: z.string().optional(),
      })
      .refine((f) => f.match === "is" || f.match === "ns" || f.value !== "", {
        message: "value is required for this match",
        path: ["value"],
      }),
    z.object({ id: z.literal(FILTER.latestRelease), name: z.string().optional() }),
    z
      .object({
        id: z.literal(FILTER.attribute),
        attribute: z.literal("release", { message: "attribute must be release" }),
        match: matchSchema,
        value: text(200).optional().default(""),
        name: z.string().optional(),
      })
      .refine((f) => f.match === "is" || f.match === "ns" || f.value !== "", {
        message: "value is required for this match",
        path: ["value"],
      }),
    z.object({
      id: z.literal(FILTER.age),
      comparison_type: z.enum(["older", "newer"], {
        message: "comparison_type must be older or newer",
      }),
      value: count,
      time: z.enum(["minute", "hour", "day", "week"], {
        message: "time must be minute, hour, day or week",
      }),
      name: z.string().optional(),
    }),
    z.object({ id: z.literal(FILTER.occurrences), value: count, name: z.string().optional() }),
  ],
  { message: "unknown filter id" },
);
export type Filter = z.infer<typeof FilterSchema>;

export const AGE_UNITS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };

/** http(s) only; private and loopback targets are refused unless allowed (see webhook-url.ts). */
const webhookUrl = z
  .string({ message: "a URL is required" })
  .max(2000, "at most 2000 characters")
  .refine((u) => isHttpUrl(u), { message: "must be an http or https URL" })
  .refine((u) => !isPrivateWebhookHost(u), {
    message: "private, loopback and link-local addresses are refused",
  });

const webhookAction = (id: string, field: "webhookUrl" | "url") =>
  z.object({ id: z.literal(id), [field]: webhookUrl, name: z.string().optional() });

export const ActionSchema = z.discriminatedUnion(
  "id",
  [
    z
      .object({
        id: z.literal(ACTION.email),
        /** AllMembers: every member of the organization; Member: the member `targetIdentifier`. */
        targetType: z.enum(["AllMembers", "Member"], {
          message: "targetType must be AllMembers or Member",
        }),
        targetIdentifier: z.union([z.string().max(200), z.number()]).nullish(),
        fallthroughType: z.string().optional(),
        name: z.string().optional(),
      })
      .refine((a) => a.targetType !== "Member" || (a.targetIdentifier ?? "") !== "", {
        message: "targetIdentifier (the member) is required",
        path: ["targetIdentifier"],
      }),
    z.object({
      id: z.literal(ACTION.slack),
      webhookUrl,
      channel: text(200).optional(),
      name: z.string().optional(),
    }),
    webhookAction(ACTION.discord, "webhookUrl"),
    webhookAction(ACTION.teams, "webhookUrl"),
    webhookAction(ACTION.googleChat, "webhookUrl"),
    webhookAction(ACTION.slackCompatible, "webhookUrl"),
    webhookAction(ACTION.webhook, "url"),
  ],
  { message: "unknown action id" },
);
export type Action = z.infer<typeof ActionSchema>;

/** Sentry's `frequency` is the action interval in minutes: 5 minutes to 30 days. */
export const FREQUENCIES = [5, 10, 30, 60, 180, 720, 1440, 10080, 43200] as const;

export const RuleInputSchema = z.object({
  name: z.string().trim().min(1, "name is required").max(256, "at most 256 characters"),
  environment: z
    .string()
    .max(64, "at most 64 characters")
    .nullish()
    .transform((v) => (v ? v : null)),
  actionMatch: z.enum(["all", "any"], { message: "actionMatch must be all or any" }).default("all"),
  filterMatch: z
    .enum(["all", "any", "none"], { message: "filterMatch must be all, any or none" })
    .default("all"),
  frequency: z.coerce
    .number({ message: "frequency must be a number of minutes" })
    .int("frequency must be a whole number of minutes")
    .refine((m) => (FREQUENCIES as readonly number[]).includes(m), {
      message: `frequency must be one of ${FREQUENCIES.join(", ")} (minutes)`,
    })
    .default(30),
  conditions: z
    .array(ConditionSchema)
    .min(1, "at least one condition is required")
    .max(20, "at most 20 conditions"),
  filters: z.array(FilterSchema).max(20, "at most 20 filters").default([]),
  actions: z
    .array(ActionSchema)
    .min(1, "at least one action is required")
    .max(10, "at most 10 actions"),
});
export type RuleInput = z.infer<typeof RuleInputSchema>;

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}
