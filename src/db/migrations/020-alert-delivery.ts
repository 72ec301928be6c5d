import type { AnyDb } from "./helpers";

/**
 * Alert delivery (src/alerts/delivery/): who claimed an outbox row (a sender's token, so a
 * batch claim can read back exactly its rows), the storm guard's hourly counts per rule and
 * channel and the rows it held for the hour's digest, per-user email settings, and the alert
 * state of each cron monitor (its channels, how many failures in a row alert, where it stands).
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("alert_outbox").addColumn("claimed_by", "text").execute();
  /** Storm guard: the hour a row was held in (past the hourly limit), for that hour's digest. */
  await db.schema.alterTable("alert_outbox").addColumn("held_hour", "bigint").execute();
  /** The digest row that named this held row. */
  await db.schema.alterTable("alert_outbox").addColumn("digest_id", "bigint").execute();
  /** "rule:<id>" or "monitor:<id>" and a hash of the channel: the storm guard's key. */
  await db.schema.alterTable("alert_outbox").addColumn("storm_key", "text").execute();
  await db.schema
    .createIndex("alert_outbox_held")
    .on("alert_outbox")
    .columns(["status", "held_hour"])
    .execute();
  await db.schema
    .createIndex("alert_outbox_monitor")
    .on("alert_outbox")
    .columns(["monitor_id", "created_at"])
    .execute();

  await db.schema
    .createTable("alert_storm_counts")
    .addColumn("storm_key", "text", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("sent", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("alert_storm_counts_pk", ["storm_key", "hour"])
    .execute();

  /**
   * A user's alert email settings. No row: every alert email a rule sends them. `none`: no
   * alert email. Otherwise mail about issues assigned to them (`assigned`) and/or about every
   * issue of the projects listed in `projects` (JSON array of ids).
   */
  await db.schema
    .createTable("notification_settings")
    .addColumn("user_id", "text", (c) => c.primaryKey())
    .addColumn("none", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("assigned", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("projects", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  /** JSON array of actions ({id, …}, as a rule's); null: email every member of the org. */
  await db.schema.alterTable("monitors").addColumn("alert_actions", "text").execute();
  await db.schema
    .alterTable("monitors")
    .addColumn("alert_failure_threshold", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable("monitors")
    .addColumn("alert_failures", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  /** ok | alerting */
  await db.schema
    .alterTable("monitors")
    .addColumn("alert_state", "text", (c) => c.notNull().defaultTo("ok"))
    .execute();
  /** Counts the monitor's incidents: part of each alert's dedupe key. */
  await db.schema
    .alterTable("monitors")
    .addColumn("alert_incident", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  /** HMAC key of the generic webhook's signature for this monitor's alerts. */
  await db.schema.alterTable("monitors").addColumn("alert_secret", "text").execute();
}
