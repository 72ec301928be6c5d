import { sql } from "kysely";
import type { AnyDb } from "./helpers";

/**
 * One row per trace, project and environment, kept by the store stage in the transaction
 * that stores the spans (src/ingest/store/trace-summaries.ts): the trace list reads its 50
 * newest traces and their root, duration and span count here instead of aggregating raw
 * spans (2M spans in 100k traces made that 0.5–2 s). `environment` is '' for none, so the
 * key has no NULL in it. The root is the earliest span without a parent (rank 0), else the
 * earliest transaction (rank 1); rank 2 means neither was received.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("trace_summaries")
    .addColumn("trace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("start_timestamp", "double precision", (c) => c.notNull())
    .addColumn("end_timestamp", "double precision", (c) => c.notNull())
    .addColumn("span_count", "bigint", (c) => c.notNull())
    .addColumn("root_rank", "integer", (c) => c.notNull())
    .addColumn("root_start", "double precision", (c) => c.notNull())
    .addColumn("root_name", "text")
    .addColumn("root_op", "text")
    /** The newest span's arrival: retention drops the row once all its spans are gone. */
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("trace_summaries_pk", ["trace_id", "project_id", "environment"])
    .execute();
  // The list: a project's newest traces of a range. Retention finds a project's old rows by
  // this index too (old rows start early); an index on received_at, moved by every upsert,
  // cost ~4 % of the OTLP bench's processing.
  await db.schema
    .createIndex("trace_summaries_project_start")
    .on("trace_summaries")
    .columns(["project_id", "start_timestamp"])
    .execute();

  await fillTraceSummaries(db);
}

/** The spans stored before this migration, summarized the way the store stage does. */
export async function fillTraceSummaries(db: AnyDb): Promise<void> {
  await sql`
    insert into trace_summaries (trace_id, project_id, environment, start_timestamp,
      end_timestamp, span_count, root_rank, root_start, root_name, root_op, received_at)
    select g.trace_id, g.project_id, g.environment, g.start_timestamp, g.end_timestamp,
      g.span_count, coalesce(r.root_rank, 2), coalesce(r.root_start, 0), r.root_name,
      r.root_op, g.received_at
    from (
      select trace_id, project_id, coalesce(environment, '') as environment,
        min(start_timestamp) as start_timestamp, max(end_timestamp) as end_timestamp,
        count(*) as span_count, max(received_at) as received_at
      from spans group by trace_id, project_id, coalesce(environment, '')
    ) g
    left join (
      select trace_id, project_id, environment, root_rank, root_start, root_name, root_op
      from (
        select trace_id, project_id, coalesce(environment, '') as environment,
          case when parent_span_id is null then 0 else 1 end as root_rank,
          start_timestamp as root_start, coalesce(segment_name, name) as root_name,
          op as root_op,
          row_number() over (
            partition by trace_id, project_id, coalesce(environment, '')
            order by case when parent_span_id is null then 0 else 1 end, start_timestamp
          ) as n
        from spans where parent_span_id is null or is_segment = 1
      ) ranked where n = 1
    ) r on r.trace_id = g.trace_id and r.project_id = g.project_id
      and r.environment = g.environment
  `.execute(db);
}
