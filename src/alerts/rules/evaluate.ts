import { randomUUID } from "node:crypto";
import { type Insertable, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import { rulesForProjects } from "./cache";
import type { AlertRule } from "./model";
import {
  AGE_UNITS,
  CONDITION,
  type Condition,
  FILTER,
  type Filter,
  INTERVALS,
  type IntervalName,
  LEVELS,
  type Match,
} from "./schemas";

/**
 * Alert decisions, in the store stage's transaction: for each issue of the batch and each
 * active rule of its project, whether the rule's conditions and filters hold, whether its
 * action interval has passed (claimed in `alert_rule_fires`, so a second worker waits on the
 * row and then sees the claim), and one `alert_outbox` row per action under a deterministic
 * `dedupe_key` inserted with on-conflict-do-nothing. Frequency conditions read the per-minute
 * counters the store stage keeps (`issue_minute_counts`, `issue_minute_users`).
 */

export interface AlertEvent {
  eventId: string;
  level: string;
  environment: string | null;
  release: string | null;
  tags: readonly [string, string][];
  receivedAt: number;
}

export interface AlertIssue {
  issueId: number;
  projectId: number;
  /** Created by this batch. */
  isNew: boolean;
  /** Reopened by this batch: a resolved issue regressed, or an ignored one came back. */
  reopened?: "regression" | "reappeared";
  timesSeen: number;
  firstSeen: number;
  /** The batch's events of the issue, newest first. */
  events: AlertEvent[];
}

export type AlertReason = "new_issue" | "regression" | "reappeared" | "frequency" | "unique_users";

interface Candidate {
  rule: AlertRule;
  issue: AlertIssue;
  /** Conditions still to read from the counters. */
  pending: Condition[];
  reason: AlertReason | undefined;
  event: AlertEvent;
}

export async function decideAlerts(
  trx: Transaction<Database>,
  issues: readonly AlertIssue[],
): Promise<number> {
  if (issues.length === 0) return 0;
  const projectIds = [...new Set(issues.map((i) => i.projectId))];
  const rulesByProject = await rulesForProjects(trx, projectIds);
  let any = false;
  for (const rules of rulesByProject.values()) if (rules.length > 0) any = true;
  if (!any) return 0;

  const latestRelease = await latestReleases(trx, rulesByProject);
  const candidates: Candidate[] = [];
  for (const issue of issues) {
    const rules = rulesByProject.get(issue.projectId);
    if (!rules) continue;
    for (const rule of rules) {
      const c = preselect(rule, issue, latestRelease.get(issue.projectId));
      if (c) candidates.push(c);
    }
  }
  if (candidates.length === 0) return 0;

  const now = Math.max(...issues.flatMap((i) => i.events.map((e) => e.receivedAt)));
  const due = await withoutRecentFires(trx, candidates, now);
  if (due.length === 0) return 0;
  await readCounters(trx, due, now);
  const decided = due.filter((c) => c.reason !== undefined);
  if (decided.length === 0) return 0;
  return writeDecisions(trx, decided, now);
}

/** Cheap conditions, the environment and the filters; leaves counter conditions pending. */
function preselect(
  rule: AlertRule,
  issue: AlertIssue,
  latestRelease: string | null | undefined,
): Candidate | undefined {
  if (rule.conditions.length === 0 || rule.actions.length === 0) return undefined;
  let reason: AlertReason | undefined;
  const pending: Condition[] = [];
  for (const condition of rule.conditions) {
    const instant = instantCondition(condition, issue);
    if (instant === undefined) pending.push(condition);
    else if (instant) reason ??= instant;
    else if (rule.actionMatch === "all") return undefined;
  }
  if (rule.actionMatch === "any" && reason !== undefined) pending.length = 0;
  if (pending.length === 0 && reason === undefined) return undefined;
  const event = issue.events.find(
    (e) =>
      (rule.environment === null || e.environment === rule.environment) &&
      filtersPass(rule, issue, e, latestRelease),
  );
  if (!event) return undefined;
  return { rule, issue, pending, reason: pending.length > 0 ? undefined : reason, event };
}

/** A reason when the condition holds, false when not, undefined when counters must tell. */
function instantCondition(c: Condition, issue: AlertIssue): AlertReason | false | undefined {
  switch (c.id) {
    case CONDITION.firstSeen:
      return issue.isNew ? "new_issue" : false;
    case CONDITION.regression:
      return issue.reopened === "regression" ? "regression" : false;
    case CONDITION.reappeared:
      return issue.reopened === "reappeared" ? "reappeared" : false;
    default:
      return undefined;
  }
}

function filtersPass(
  rule: AlertRule,
  issue: AlertIssue,
  event: AlertEvent,
  latestRelease: string | null | undefined,
): boolean {
  if (rule.filters.length === 0) return true;
  let passed = 0;
  for (const f of rule.filters) if (filterPasses(f, issue, event, latestRelease)) passed++;
  if (rule.filterMatch === "all") return passed === rule.filters.length;
  if (rule.filterMatch === "any") return passed > 0;
  return passed === 0;
}

function filterPasses(
  f: Filter,
  issue: AlertIssue,
  event: AlertEvent,
  latestRelease: string | null | undefined,
): boolean {
  switch (f.id) {
    case FILTER.level: {
      const level = levelNumber(event.level);
      const want = Number(f.level);
      return f.match === "eq" ? level === want : f.match === "gte" ? level >= want : level <= want;
    }
    case FILTER.tagged: {
      const values = event.tags.filter(([k]) => k === f.key).map(([, v]) => v);
      return matches(f.match, values, f.value);
    }
    case FILTER.attribute:
      return matches(f.match, event.release ? [event.release] : [], f.value);
    case FILTER.latestRelease:
      return !!latestRelease && event.release === latestRelease;
    case FILTER.age: {
      const age = event.receivedAt - issue.firstSeen;
      const limit = f.value * AGE_UNITS[f.time];
      return f.comparison_type === "older" ? age > limit : age < limit;
    }
    case FILTER.occurrences:
      return issue.timesSeen >= f.value;
  }
}

function levelNumber(level: string): number {
  if (level === "log") return LEVELS.info;
  return LEVELS[level as keyof typeof LEVELS] ?? LEVELS.error;
}

/** Sentry's MatchType over the values a key has on the event (none when it is not set). */
export function matches(match: Match, values: readonly string[], want: string): boolean {
  const w = want.toLowerCase();
  const vs = values.map((v) => v.toLowerCase());
  switch (match) {
    case "is":
      return vs.length > 0;
    case "ns":
      return vs.length === 0;
    case "eq":
      return vs.includes(w);
    case "ne":
      return !vs.includes(w);
    case "co":
      return vs.some((v) => v.includes(w));
    case "nc":
      return !vs.some((v) => v.includes(w));
    case "sw":
      return vs.some((v) => v.startsWith(w));
    case "ew":
      return vs.some((v) => v.endsWith(w));
  }
}

/** The newest release of each project that has a rule with the latest-release filter. */
async function latestReleases(
  trx: Transaction<Database>,
  rulesByProject: Map<number, AlertRule[]>,
): Promise<Map<number, string | null>> {
  const out = new Map<number, string | null>();
  for (const [projectId, rules] of rulesByProject) {
    if (!rules.some((r) => r.filters.some((f) => f.id === FILTER.latestRelease))) continue;
    const row = await trx
      .selectFrom("release_first_seen")
      .select("version")
      .where("project_id", "=", projectId)
      .orderBy("first_seen", "desc")
      .orderBy("version", "desc")
      .limit(1)
      .executeTakeFirst();
    out.set(projectId, row?.version ?? null);
  }
  return out;
}

/**
 * When each (rule, issue) last fired, as committed in `alert_rule_fires`, per database: a
 * pair that fired within its rule's interval is dropped before its counters are read or its
 * claim tried, so a busy issue costs no statement per batch. Only values read from the table
 * are kept (never this batch's own claims, which could still roll back); the claim stays the
 * authority, and a lost claim forgets the pair so the next batch reads it again.
 */
const firesByDb = new WeakMap<object, Map<string, number>>();
const FIRES_MAX = 200_000;

function firesOf(trx: Transaction<Database>): Map<string, number> {
  const adapter = trx.getExecutor().adapter;
  let fires = firesByDb.get(adapter);
  if (!fires) {
    fires = new Map();
    firesByDb.set(adapter, fires);
  }
  return fires;
}

async function withoutRecentFires(
  trx: Transaction<Database>,
  candidates: Candidate[],
  now: number,
): Promise<Candidate[]> {
  const fires = firesOf(trx);
  if (fires.size > FIRES_MAX) fires.clear();
  const unknown = candidates.filter((c) => !fires.has(`${c.rule.id}:${c.issue.issueId}`));
  if (unknown.length > 0) {
    const ruleIds = [...new Set(unknown.map((c) => c.rule.id))];
    const issueIds = [...new Set(unknown.map((c) => c.issue.issueId))];
    for (const c of unknown) fires.set(`${c.rule.id}:${c.issue.issueId}`, 0);
    for (let i = 0; i < issueIds.length; i += 500) {
      const rows = await trx
        .selectFrom("alert_rule_fires")
        .select(["rule_id", "issue_id", "last_fired_at"])
        .where("rule_id", "in", ruleIds)
        .where("issue_id", "in", issueIds.slice(i, i + 500))
        .execute();
      for (const r of rows) fires.set(`${r.rule_id}:${r.issue_id}`, Number(r.last_fired_at));
    }
  }
  return candidates.filter(
    (c) => (fires.get(`${c.rule.id}:${c.issue.issueId}`) ?? 0) <= now - c.rule.frequency * 60_000,
  );
}

/** Reads the counters the pending conditions need (a statement per kind and interval). */
async function readCounters(
  trx: Transaction<Database>,
  candidates: Candidate[],
  now: number,
): Promise<void> {
  const needs = new Map<string, Set<number>>();
  for (const c of candidates)
    for (const p of c.pending) {
      if (p.id !== CONDITION.frequency && p.id !== CONDITION.uniqueUsers) continue;
      const key = `${p.id === CONDITION.frequency ? "events" : "users"}:${p.interval}`;
      const set = needs.get(key) ?? new Set<number>();
      set.add(c.issue.issueId);
      needs.set(key, set);
    }
  const counts = new Map<string, Map<number, number>>();
  const nowMinute = Math.floor(now / 60_000);
  for (const [key, ids] of needs) {
    const [kind, interval] = key.split(":") as ["events" | "users", IntervalName];
    const since = nowMinute - INTERVALS[interval] + 1;
    const list = [...ids];
    const got = new Map<number, number>();
    for (let i = 0; i < list.length; i += 500) {
      const chunk = list.slice(i, i + 500);
      const rows =
        kind === "events"
          ? await trx
              .selectFrom("issue_minute_counts")
              .select(["issue_id", sql<number>`SUM(events)`.as("n")])
              .where("issue_id", "in", chunk)
              .where("minute", ">=", since)
              .groupBy("issue_id")
              .execute()
          : await trx
              .selectFrom("issue_minute_users")
              .select(["issue_id", sql<number>`COUNT(DISTINCT user_key)`.as("n")])
              .where("issue_id", "in", chunk)
              .where("minute", ">=", since)
              .groupBy("issue_id")
              .execute();
      for (const r of rows) got.set(Number(r.issue_id), Number(r.n));
    }
    counts.set(key, got);
  }
  for (const c of candidates) {
    if (c.pending.length === 0) continue;
    let reason = c.reason;
    let all = true;
    for (const p of c.pending) {
      if (p.id !== CONDITION.frequency && p.id !== CONDITION.uniqueUsers) continue;
      const kind = p.id === CONDITION.frequency ? "events" : "users";
      const n = counts.get(`${kind}:${p.interval}`)?.get(c.issue.issueId) ?? 0;
      if (n > p.value) reason ??= p.id === CONDITION.frequency ? "frequency" : "unique_users";
      else all = false;
    }
    if (c.rule.actionMatch === "all") {
      // Instant conditions that failed were ruled out in preselect.
      const instantReason = instantReasonOf(c);
      c.reason = all ? (instantReason ?? reason) : undefined;
    } else {
      c.reason = reason;
    }
  }
}

function instantReasonOf(c: Candidate): AlertReason | undefined {
  for (const condition of c.rule.conditions) {
    const r = instantCondition(condition, c.issue);
    if (r) return r;
  }
  return undefined;
}

/**
 * Claims the action interval of each (rule, issue) and writes the outbox rows of the claims
 * won. The claim is an upsert that only updates a fire older than the interval; on PostgreSQL
 * a second worker deciding the same pair waits on the row and then finds it claimed.
 */
async function writeDecisions(
  trx: Transaction<Database>,
  decided: Candidate[],
  now: number,
): Promise<number> {
  const byRule = new Map<number, Candidate[]>();
  for (const c of decided) {
    const list = byRule.get(c.rule.id) ?? [];
    list.push(c);
    byRule.set(c.rule.id, list);
  }
  const won: Candidate[] = [];
  for (const ruleId of [...byRule.keys()].sort((a, b) => a - b)) {
    const list = (byRule.get(ruleId) ?? []).sort((a, b) => a.issue.issueId - b.issue.issueId);
    const intervalMs = (list[0]?.rule.frequency ?? 30) * 60_000;
    for (let i = 0; i < list.length; i += 500) {
      const chunk = list.slice(i, i + 500);
      const rows = await trx
        .insertInto("alert_rule_fires")
        .values(
          chunk.map((c) => ({ rule_id: ruleId, issue_id: c.issue.issueId, last_fired_at: now })),
        )
        .onConflict((oc) =>
          oc
            .columns(["rule_id", "issue_id"])
            .doUpdateSet({ last_fired_at: (eb) => eb.ref("excluded.last_fired_at") })
            .where("alert_rule_fires.last_fired_at", "<=", now - intervalMs),
        )
        .returning("issue_id")
        .execute();
      const claimed = new Set(rows.map((r) => Number(r.issue_id)));
      const fires = firesOf(trx);
      for (const c of chunk) {
        // Claimed: read back committed next batch. Lost to another worker: read again too.
        fires.delete(`${ruleId}:${c.issue.issueId}`);
        if (claimed.has(c.issue.issueId)) won.push(c);
      }
    }
  }
  if (won.length === 0) return 0;
  const createdAt = Date.now();
  const rows: Insertable<Database["alert_outbox"]>[] = [];
  for (const c of won) {
    const window = Math.floor(now / (c.rule.frequency * 60_000));
    c.rule.actions.forEach((action, index) => {
      rows.push({
        organization_id: c.rule.organizationId,
        project_id: c.rule.projectId,
        rule_id: c.rule.id,
        issue_id: c.issue.issueId,
        monitor_id: null,
        event_id: c.event.eventId,
        reason: c.reason as AlertReason,
        action: JSON.stringify(action),
        dedupe_key: `rule:${c.rule.id}:issue:${c.issue.issueId}:${c.reason}:${window}:${index}`,
        delivery_id: randomUUID(),
        next_attempt_at: createdAt,
        claimed_until: null,
        last_error: null,
        created_at: createdAt,
        delivered_at: null,
      });
    });
  }
  let written = 0;
  for (let i = 0; i < rows.length; i += 200) {
    const inserted = await trx
      .insertInto("alert_outbox")
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.column("dedupe_key").doNothing())
      .returning("id")
      .execute();
    written += inserted.length;
  }
  return written;
}
