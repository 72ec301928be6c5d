import { type AnyDb, withId } from "./helpers";

/**
 * Alerts (src/alerts/): issue alert rules per project in Sentry's shape, the counters the
 * store stage keeps for frequency conditions, and the outbox that makes alerts exactly-once.
 *
 * The worker decides (rule, issue, reason) in the transaction that stores the event and writes
 * one outbox row per action; `dedupe_key` is unique, so a replayed envelope or a second worker
 * on PostgreSQL cannot decide twice. The sender loop (every worker-role process) claims rows by
 * setting `claimed_until`, delivers, and records each attempt in `alert_delivery_attempts`.
 */
export async function up(db: AnyDb): Promise<void> {
  await withId(db, db.schema.createTable("alert_rules"))
    .addColumn("organization_id", "bigint", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    /** Null: every environment. */
    .addColumn("environment", "text")
    /** "all" | "any" (conditions), "all" | "any" | "none" (filters). */
    .addColumn("action_match", "text", (c) => c.notNull().defaultTo("all"))
    .addColumn("filter_match", "text", (c) => c.notNull().defaultTo("all"))
    /** Action interval in minutes (5 … 43200): at most one firing per issue per interval. */
    .addColumn("frequency", "integer", (c) => c.notNull().defaultTo(30))
    /** JSON arrays in Sentry's REST shape: [{id: "sentry.rules.conditions…", …}]. */
    .addColumn("conditions", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("filters", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("actions", "text", (c) => c.notNull().defaultTo("[]"))
    /** HMAC key of the generic webhook's X-Faultline-Signature. */
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
    .addColumn("created_by", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("alert_rules_project")
    .on("alert_rules")
    .columns(["project_id"])
    .execute();

  /** When a rule last acted on an issue (its action interval). */
  await db.schema
    .createTable("alert_rule_fires")
    .addColumn("rule_id", "bigint", (c) => c.notNull())
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("last_fired_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("alert_rule_fires_pk", ["rule_id", "issue_id"])
    .execute();

  /**
   * Events per issue and minute, kept by the store stage in the batch's transaction, for the
   * "seen more than N times in an interval" condition (summed over the interval's minutes).
   */
  await db.schema
    .createTable("issue_minute_counts")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("minute", "bigint", (c) => c.notNull())
    .addColumn("events", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_minute_counts_pk", ["issue_id", "minute"])
    .execute();

  await withId(db, db.schema.createTable("alert_outbox"))
    .addColumn("organization_id", "bigint", (c) => c.notNull())
    .addColumn("project_id", "bigint")
    /** Null for cron monitor alerts and test notifications. */
    .addColumn("rule_id", "bigint")
    .addColumn("issue_id", "bigint")
    .addColumn("monitor_id", "bigint")
    /** The event that triggered it (hex id), when there is one. */
    .addColumn("event_id", "text")
    /**
     * new_issue | regression | reappeared | frequency | unique_users | monitor_missed |
     * monitor_failed | monitor_recovered | test
     */
    .addColumn("reason", "text", (c) => c.notNull())
    /** JSON: the action as configured when decided ({id, …}), so later edits do not change it. */
    .addColumn("action", "text", (c) => c.notNull())
    /** Unique: the same decision written twice (replay, a second worker) is one row. */
    .addColumn("dedupe_key", "text", (c) => c.notNull().unique())
    /** Sent as X-Faultline-Delivery; the same on every retry. */
    .addColumn("delivery_id", "text", (c) => c.notNull())
    /** pending | delivered | failed */
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    /** A sender's claim: others leave the row alone until then (a dead sender's claim lapses). */
    .addColumn("claimed_until", "bigint")
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("delivered_at", "bigint")
    .execute();
  await db.schema
    .createIndex("alert_outbox_due")
    .on("alert_outbox")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("alert_outbox_rule")
    .on("alert_outbox")
    .columns(["rule_id", "created_at"])
    .execute();

  await withId(db, db.schema.createTable("alert_delivery_attempts"))
    .addColumn("outbox_id", "bigint", (c) => c.notNull())
    .addColumn("attempted_at", "bigint", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    /** HTTP status, or null for a connection error, a timeout or mail. */
    .addColumn("http_status", "integer")
    /** ok | retry | failed */
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .execute();
  await db.schema
    .createIndex("alert_delivery_attempts_outbox")
    .on("alert_delivery_attempts")
    .columns(["outbox_id"])
    .execute();
}
