import { z } from "zod";
import { ONCALL_IDS } from "../delivery/oncall";
import {
  ACTION,
  CONDITION,
  FILTER,
  FREQUENCIES,
  INTERVALS,
  type IntervalName,
  MATCHES,
} from "./ids";
import { isPrivateWebhookHost } from "./webhook-url";

export * from "./ids";

/**
 * Issue alert rules in Sentry's REST shape: `{name, environment, actionMatch, filterMatch,
 * frequency, conditions, filters, actions}`, each condition, filter and action an object with
 * Sentry's `id` where Sentry has one, and a `faultline.…` id where it has none (Discord, Teams,
 * Google Chat, Slack-compatible and the generic signed webhook). Unknown ids, numbers out of
 * range and intervals not in the list are refused with the field named.
 */

const intervalNames = Object.keys(INTERVALS) as [IntervalName, ...IntervalName[]];

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

/** http(s) only; private and loopback targets are refused unless allowed (see webhook-url.ts). */
const webhookUrl = z
  .string({ message: "a URL is required" })
  .max(2000, "at most 2000 characters")
  .refine((u) => isHttpUrl(u), { message: "must be an http or https URL" })
  .refine((u) => !isPrivateWebhookHost(u), {
    message: "private, loopback and link-local addresses are refused",
  });

const webhookAction = <I extends string>(id: I) =>
  z.object({ id: z.literal(id), webhookUrl, name: z.string().optional() });

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
    webhookAction(ACTION.discord),
    webhookAction(ACTION.teams),
    webhookAction(ACTION.googleChat),
    webhookAction(ACTION.slackCompatible),
    /** Sentry's legacy webhook plugin calls its field `url`. */
    z.object({ id: z.literal(ACTION.webhook), url: webhookUrl, name: z.string().optional() }),
    // On-call and chat services (src/alerts/delivery/oncall.ts): string fields, checked and
    // their credentials sealed when the rule is saved (oncall-actions.ts).
    ...ONCALL_IDS.map((id) => z.object({ id: z.literal(id) }).catchall(z.string().max(4000))),
  ],
  { message: "unknown action id" },
);
export type Action = z.infer<typeof ActionSchema>;

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
