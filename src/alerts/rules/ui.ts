import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import type { OrgRef } from "../../orgs/queries";
import { findOrgProject } from "../../projects/queries";
import { ONCALL_ACTIONS } from "../delivery/oncall";
import { ACTION, CONDITION, FILTER } from "./ids";
import type { AlertRule } from "./model";
import type { RuleScope } from "./mutations";

/** What the rule editor's action hands back: a message and zod's errors by field path. */
export type RuleFormState = {
  ok: boolean;
  message: string;
  fieldErrors: Record<string, string>;
} | null;

export async function orgProjectScope(
  db: Db,
  org: OrgRef,
  projectSlug: string,
): Promise<RuleScope> {
  const project = await findOrgProject(db, org.id, projectSlug);
  if (!project) throw new AppError("not_found", "project not found");
  return { orgId: org.id, projectId: Number(project.id), projectSlug: project.slug };
}

const CONDITION_WORDS: Record<string, string> = {
  [CONDITION.firstSeen]: "a new issue",
  [CONDITION.regression]: "a resolved issue regresses",
  [CONDITION.reappeared]: "an ignored issue comes back",
  [CONDITION.frequency]: "seen more than N times",
  [CONDITION.uniqueUsers]: "more than N users",
};

/** One line of words for a rule's triggers, as the list shows them. */
export function describeConditions(rule: AlertRule): string {
  return rule.conditions
    .map((c) =>
      "interval" in c
        ? `${c.id === CONDITION.frequency ? "seen" : "users"} > ${c.value} in ${c.interval}`
        : (CONDITION_WORDS[c.id] ?? c.id),
    )
    .join(rule.actionMatch === "all" ? " and " : " or ");
}

const FILTER_WORDS: Record<string, string> = {
  [FILTER.level]: "level",
  [FILTER.tagged]: "tag",
  [FILTER.latestRelease]: "latest release",
  [FILTER.attribute]: "release",
  [FILTER.age]: "issue age",
  [FILTER.occurrences]: "times seen",
};

export function describeFilters(rule: AlertRule): string {
  return rule.filters.map((f) => FILTER_WORDS[f.id] ?? f.id).join(", ");
}

const ACTION_WORDS: Record<string, string> = {
  [ACTION.email]: "email",
  [ACTION.slack]: "Slack",
  [ACTION.discord]: "Discord",
  [ACTION.teams]: "Microsoft Teams",
  [ACTION.googleChat]: "Google Chat",
  [ACTION.slackCompatible]: "Slack-compatible webhook",
  [ACTION.webhook]: "webhook",
  [ONCALL_ACTIONS.pagerduty]: "PagerDuty",
  [ONCALL_ACTIONS.opsgenie]: "Opsgenie",
  [ONCALL_ACTIONS.telegram]: "Telegram",
  [ONCALL_ACTIONS.ntfy]: "ntfy",
  [ONCALL_ACTIONS.zulip]: "Zulip",
  [ONCALL_ACTIONS.mattermost]: "Mattermost",
  [ONCALL_ACTIONS.pushover]: "Pushover",
};

export function describeActions(rule: AlertRule): string {
  return rule.actions
    .map((a) =>
      a.id === ACTION.email
        ? a.targetType === "AllMembers"
          ? "email the members"
          : `email ${String(a.targetIdentifier)}`
        : (ACTION_WORDS[a.id] ?? a.id),
    )
    .join(", ");
}
