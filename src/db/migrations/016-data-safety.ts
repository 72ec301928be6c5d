import type { AnyDb } from "./helpers";

/**
 * Data safety per project (src/projects/data-settings.ts): server-side scrubbing (on by
 * default, as Sentry's Data Scrubber), the project's own sensitive and safe fields, IP
 * scrubbing (off by default), allowed browser origins (default `*`) and inbound filters
 * (JSON; Sentry's defaults for a new project: browser extensions, web crawlers and legacy
 * browsers filtered, localhost kept). Plus the indexes retention needs now that spans and
 * logs age from when they arrived, not from the time their client claims.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("projects")
    .addColumn("scrub_data", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable("projects")
    .addColumn("scrub_defaults", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable("projects")
    .addColumn("scrub_ip_addresses", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  for (const [column, initial] of [
    ["sensitive_fields", "[]"],
    ["safe_fields", "[]"],
    ["allowed_domains", '["*"]'],
    [
      "inbound_filters",
      '{"browser_extensions":true,"localhost":false,"web_crawlers":true,"legacy_browsers":true,"error_messages":[],"releases":[]}',
    ],
  ] as const) {
    await db.schema
      .alterTable("projects")
      .addColumn(column, "text", (c) => c.notNull().defaultTo(initial))
      .execute();
  }
  await db.schema
    .createIndex("spans_project_received_at")
    .on("spans")
    .columns(["project_id", "received_at"])
    .execute();
  await db.schema
    .createIndex("log_items_project_received_at")
    .on("log_items")
    .columns(["project_id", "received_at"])
    .execute();
}
