import { type AnyDb, withId } from "./helpers";

/**
 * Uptime monitors (issue 34, src/uptime/): HTTP(S) checks the worker role runs on each
 * monitor's interval, every check's result, and the incidents (down → up) with the downtime
 * issue each opened. `next_check_at` is the claim: a worker runs a check only after moving it
 * on with a compare-and-set, so several processes on PostgreSQL check each monitor once.
 * Status pages: an organization's public page (opt-in, its own slug) and the monitors on it.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("uptime_monitors")
    .$call((t) => withId(db, t))
    .addColumn("organization_id", "bigint", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    /** http: the worker requests `url`; heartbeat: the monitored job pings a secret URL. */
    .addColumn("kind", "text", (c) => c.notNull().defaultTo("http"))
    .addColumn("heartbeat_token", "text", (c) => c.unique())
    .addColumn("last_ping_at", "bigint")
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("method", "text", (c) => c.notNull())
    /** JSON list of [name, value]. */
    .addColumn("headers", "text", (c) => c.notNull())
    .addColumn("body", "text")
    .addColumn("interval_seconds", "integer", (c) => c.notNull())
    .addColumn("timeout_ms", "integer", (c) => c.notNull())
    /** JSON list of [low, high] status ranges. */
    .addColumn("expected_status", "text", (c) => c.notNull())
    .addColumn("body_contains", "text")
    .addColumn("tls_warning_days", "integer", (c) => c.notNull())
    .addColumn("failure_threshold", "integer", (c) => c.notNull())
    .addColumn("recovery_threshold", "integer", (c) => c.notNull())
    .addColumn("owner", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("successes", "integer", (c) => c.notNull())
    .addColumn("next_check_at", "bigint", (c) => c.notNull())
    .addColumn("last_check_at", "bigint")
    .addColumn("incident_id", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("uptime_monitors_due")
    .on("uptime_monitors")
    .columns(["status", "next_check_at"])
    .execute();
  await db.schema
    .createIndex("uptime_monitors_project")
    .on("uptime_monitors")
    .columns(["project_id", "id"])
    .execute();
  await db.schema
    .createTable("uptime_checks")
    .$call((t) => withId(db, t))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("monitor_id", "bigint", (c) => c.notNull())
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("ok", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("dns_ms", "integer")
    .addColumn("connect_ms", "integer")
    .addColumn("tls_ms", "integer")
    .addColumn("first_byte_ms", "integer")
    .addColumn("error", "text")
    .addColumn("cert_expires_at", "bigint")
    .addColumn("trace_id", "text")
    .execute();
  await db.schema
    .createIndex("uptime_checks_monitor_time")
    .on("uptime_checks")
    .columns(["monitor_id", "started_at"])
    .execute();
  await db.schema
    .createIndex("uptime_checks_project_time")
    .on("uptime_checks")
    .columns(["project_id", "started_at"])
    .execute();
  await db.schema
    .createTable("uptime_incidents")
    .$call((t) => withId(db, t))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("monitor_id", "bigint", (c) => c.notNull())
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("resolved_at", "bigint")
    .addColumn("issue_id", "bigint")
    .addColumn("error", "text")
    .execute();
  await db.schema
    .createIndex("uptime_incidents_monitor")
    .on("uptime_incidents")
    .columns(["monitor_id", "started_at"])
    .execute();
  await db.schema
    .createTable("status_pages")
    .$call((t) => withId(db, t))
    .addColumn("organization_id", "bigint", (c) => c.notNull().unique())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("status_page_monitors")
    .addColumn("status_page_id", "bigint", (c) => c.notNull())
    .addColumn("monitor_id", "bigint", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    /** 1: the page shows the monitor's URL (off by default: URLs can be internal). */
    .addColumn("show_url", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("status_page_monitors_pk", ["status_page_id", "monitor_id"])
    .execute();
}
