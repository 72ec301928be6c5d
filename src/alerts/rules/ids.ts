/**
 * The ids of conditions, filters and actions, and the choices of their fields: Sentry's where
 * Sentry has them. Kept apart from schemas.ts so the rule editor (a client component) can use
 * them.
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

/** Sentry's level numbers (LevelFilter's `level` is one of these, as a string or a number). */
export const LEVELS = { fatal: 50, error: 40, warning: 30, info: 20, debug: 10 } as const;
/** Sentry's MatchType codes for tags and attributes. */
export const MATCHES = ["eq", "ne", "co", "nc", "sw", "ew", "is", "ns"] as const;
export type Match = (typeof MATCHES)[number];
/** Sentry's `frequency` is the action interval in minutes: 5 minutes to 30 days. */
export const FREQUENCIES = [5, 10, 30, 60, 180, 720, 1440, 10080, 43200] as const;

export const AGE_UNITS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };
