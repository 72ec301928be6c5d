import { sql } from "kysely";
import { type AnyDb, isPostgres, withId } from "./helpers";

/**
 * Source-map uploads as sentry-cli makes them (src/sourcemaps/): chunks waiting for their
 * bundle, artifact bundles with the projects they were uploaded for, and one index row per
 * file and project, found by debug ID or by release + dist + URL. Bytes live in files under
 * the data directory on SQLite (`path`) and in `data` on PostgreSQL, as attachments do.
 * Plus the releases the CLI creates and finalizes, with their deploys.
 */
export async function up(db: AnyDb): Promise<void> {
  const bytes = isPostgres(db) ? sql`bytea` : sql`blob`;

  await db.schema
    .createTable("upload_chunks")
    .addColumn("organization_id", "bigint", (c) =>
      c.notNull().references("organizations.id").onDelete("cascade"),
    )
    .addColumn("sha1", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("path", "text")
    .addColumn("data", bytes)
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("upload_chunks_pk", ["organization_id", "sha1"])
    .execute();
  await db.schema
    .createIndex("upload_chunks_created")
    .on("upload_chunks")
    .column("created_at")
    .execute();

  await withId(db, db.schema.createTable("artifact_bundles"))
    .addColumn("organization_id", "bigint", (c) =>
      c.notNull().references("organizations.id").onDelete("cascade"),
    )
    /** SHA-1 of the whole bundle, as the CLI names it in assemble. */
    .addColumn("checksum", "text", (c) => c.notNull())
    /** created | assembling | ok | error */
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("detail", "text")
    .addColumn("release", "text")
    .addColumn("dist", "text")
    .addColumn("size", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("file_count", "integer", (c) => c.notNull().defaultTo(0))
    /** JSON array of the bundle's debug IDs. */
    .addColumn("debug_ids", "text", (c) => c.notNull().defaultTo("[]"))
    /** JSON array of the chunk SHA-1s, in order, until assembled. */
    .addColumn("chunks", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("path", "text")
    .addColumn("data", bytes)
    /** Who uploaded it: a token's or user's label. */
    .addColumn("uploaded_by", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("artifact_bundles_org_checksum", ["organization_id", "checksum"])
    .execute();

  await db.schema
    .createTable("artifact_bundle_projects")
    .addColumn("bundle_id", "bigint", (c) =>
      c.notNull().references("artifact_bundles.id").onDelete("cascade"),
    )
    .addColumn("project_id", "bigint", (c) =>
      c.notNull().references("projects.id").onDelete("cascade"),
    )
    .addPrimaryKeyConstraint("artifact_bundle_projects_pk", ["bundle_id", "project_id"])
    .execute();
  await db.schema
    .createIndex("artifact_bundle_projects_project")
    .on("artifact_bundle_projects")
    .column("project_id")
    .execute();

  await withId(db, db.schema.createTable("artifact_bundle_files"))
    .addColumn("bundle_id", "bigint", (c) =>
      c.notNull().references("artifact_bundles.id").onDelete("cascade"),
    )
    .addColumn("project_id", "bigint", (c) => c.notNull())
    /** The entry's name inside the bundle's zip. */
    .addColumn("entry", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    /** Lower-case UUID, or null for a file without one. */
    .addColumn("debug_id", "text")
    .addColumn("release", "text")
    .addColumn("dist", "text")
    /** JSON object: the manifest's headers for this file. */
    .addColumn("headers", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("size", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex("artifact_bundle_files_debug_id")
    .on("artifact_bundle_files")
    .columns(["project_id", "debug_id"])
    .execute();
  await db.schema
    .createIndex("artifact_bundle_files_url")
    .on("artifact_bundle_files")
    .columns(["project_id", "release", "url"])
    .execute();
  await db.schema
    .createIndex("artifact_bundle_files_bundle")
    .on("artifact_bundle_files")
    .column("bundle_id")
    .execute();

  await withId(db, db.schema.createTable("releases"))
    .addColumn("organization_id", "bigint", (c) =>
      c.notNull().references("organizations.id").onDelete("cascade"),
    )
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("ref", "text")
    .addColumn("url", "text")
    .addColumn("date_created", "bigint", (c) => c.notNull())
    /** Set by finalize. */
    .addColumn("date_released", "bigint")
    .addUniqueConstraint("releases_org_version", ["organization_id", "version"])
    .execute();
  await db.schema
    .createTable("release_projects")
    .addColumn("release_id", "bigint", (c) =>
      c.notNull().references("releases.id").onDelete("cascade"),
    )
    .addColumn("project_id", "bigint", (c) =>
      c.notNull().references("projects.id").onDelete("cascade"),
    )
    .addPrimaryKeyConstraint("release_projects_pk", ["release_id", "project_id"])
    .execute();
  await withId(db, db.schema.createTable("release_deploys"))
    .addColumn("release_id", "bigint", (c) =>
      c.notNull().references("releases.id").onDelete("cascade"),
    )
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("url", "text")
    .addColumn("date_started", "bigint")
    .addColumn("date_finished", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("release_deploys_release")
    .on("release_deploys")
    .column("release_id")
    .execute();
}
