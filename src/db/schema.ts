import type { Generated } from "kysely";

/**
 * Table types for Kysely. Times are integer milliseconds since the epoch (bigint on
 * PostgreSQL, parsed back to number), booleans are 0/1 integers so one schema serves both
 * dialects, and JSON columns are text.
 */
export interface Database {
  organizations: OrganizationTable;
  teams: TeamTable;
  instance_admins: InstanceAdminTable;
  instance_audit_log: InstanceAuditLogTable;
  projects: ProjectTable;
  project_keys: ProjectKeyTable;
  issues: IssueTable;
  issue_users: IssueUserTable;
  issue_tags: IssueTagTable;
  events: EventTable;
  event_blocks: EventBlockTable;
  outcomes: OutcomeTable;
  ingest_queue: IngestQueueTable;
  worker_state: WorkerStateTable;
  dead_letters: DeadLetterTable;
  issue_deletions: IssueDeletionTable;
  log_containers: LogContainerTable;
  spans: SpanTable;
  trace_summaries: TraceSummaryTable;
  log_items: LogItemTable;
  log_volume: LogVolumeTable;
  log_search: LogSearchTable;
  transaction_rollups: TransactionRollupTable;
  transaction_op_rollups: TransactionOpRollupTable;
  release_sessions: ReleaseSessionTable;
  release_session_members: ReleaseSessionMemberTable;
  monitors: MonitorTable;
  check_ins: CheckInTable;
  feedback: FeedbackTable;
  attachments: AttachmentTable;
  audit_log: AuditLogTable;
  api_tokens: ApiTokenTable;
  issue_bookmarks: IssueBookmarkTable;
  issue_search: IssueSearchTable;
  issue_hashes: IssueHashTable;
  issue_tombstones: IssueTombstoneTable;
  event_hashes: EventHashTable;
  saved_searches: SavedSearchTable;
  issue_activity: IssueActivityTable;
  release_first_seen: ReleaseFirstSeenTable;
  invitations: InvitationTable;
  sso_providers: SsoProviderTable;
  alert_rules: AlertRuleTable;
  alert_rule_fires: AlertRuleFireTable;
  issue_minute_counts: IssueMinuteCountTable;
  issue_minute_users: IssueMinuteUserTable;
  alert_outbox: AlertOutboxTable;
  alert_delivery_attempts: AlertDeliveryAttemptTable;
  upload_chunks: UploadChunkTable;
  artifact_bundles: ArtifactBundleTable;
  artifact_bundle_projects: ArtifactBundleProjectTable;
  artifact_bundle_files: ArtifactBundleFileTable;
  releases: ReleaseTable;
  release_projects: ReleaseProjectTable;
  release_deploys: ReleaseDeployTable;
  alert_storm_counts: AlertStormCountTable;
  notification_settings: NotificationSettingTable;
  uptime_monitors: UptimeMonitorTable;
  uptime_checks: UptimeCheckTable;
  uptime_incidents: UptimeIncidentTable;
  status_pages: StatusPageTable;
  status_page_monitors: StatusPageMonitorTable;
}

export interface OrganizationTable {
  id: Generated<number>;
  slug: string;
  name: string;
  created_at: number;
  /** `active`, or `deleting` once its owner deleted it (migration 029). */
  status: Generated<"active" | "deleting">;
}

/** An organization's team; each organization has one named after its slug (migration 029). */
export interface TeamTable {
  id: Generated<number>;
  organization_id: number;
  slug: string;
  name: string;
  date_created: number;
}

/** Instance-wide events (an organization deleted), kept after the organization is gone. */
export interface InstanceAuditLogTable {
  id: Generated<number>;
  actor_user_id: string | null;
  actor_label: string;
  action: "org.delete";
  target: string | null;
  /** JSON. */
  details: string | null;
  created_at: number;
}

/** Users who decide the instance's policy (who may create organizations). */
export interface InstanceAdminTable {
  user_id: string;
  created_at: number;
}

export interface ProjectTable {
  id: Generated<number>;
  organization_id: number;
  slug: string;
  name: string;
  platform: string | null;
  created_at: number;
  /** Data older than this many days is deleted (src/maintenance/retention.ts). */
  retention_days: Generated<number>;
}

export interface ProjectKeyTable {
  id: Generated<number>;
  project_id: number;
  public_key: string;
  secret_key: string;
  label: string;
  enabled: number;
  created_at: number;
  /** Seconds; with rate_limit_count, at most that many events per window. Null: no limit. */
  rate_limit_window: number | null;
  rate_limit_count: number | null;
}

export type IssueStatus = "unresolved" | "resolved" | "ignored";

export interface IssueTable {
  id: Generated<number>;
  project_id: number;
  /** Hex hash of the grouping components; unique per project. */
  fingerprint: string;
  title: string;
  culprit: string | null;
  /** Exception type (or empty for message events): metadata.type in Sentry's API. */
  type: string;
  value: string;
  level: string;
  platform: string | null;
  status: IssueStatus;
  /** "regressed" after a resolved issue saw a new event; null otherwise. */
  substatus: string | null;
  first_seen: number;
  last_seen: number;
  times_seen: number;
  user_count: number;
  /** JSON: { filename, function } of the culprit frame, for Sentry's metadata. */
  metadata: string;
  /** The member the issue is assigned to (migration 014), null when nobody. */
  assignee_user_id: Generated<string | null>;
  /** JSON condition of a resolved or ignored status (src/issues/status-details.ts). */
  status_details: Generated<string | null>;
}

export interface IssueUserTable {
  issue_id: number;
  user_key: string;
  /** The user's email and username as first seen on the issue (migration 014, for search). */
  email?: string | null;
  username?: string | null;
}

/** How often each tag value was seen on an issue (see src/ingest/store/issue-tags.ts). */
export interface IssueTagTable {
  issue_id: number;
  key: string;
  value: string;
  times_seen: number;
  first_seen: number;
  last_seen: number;
}

export interface EventTable {
  id: Generated<number>;
  project_id: number;
  issue_id: number;
  /** 32 lowercase hex characters, unique per project. */
  event_id: string;
  timestamp: number;
  received_at: number;
  level: string;
  title: string;
  release: string | null;
  environment: string | null;
  platform: string | null;
  user_key: string | null;
  trace_id: string | null;
  /**
   * The event as the SDK sent it, compressed, or where it lies in its `event_blocks` row;
   * normalized when read (older rows: normalized JSON; see src/events/payload.ts).
   */
  payload: Buffer;
}

/** Events of one project and batch, compressed together (see src/events/payload.ts). */
export interface EventBlockTable {
  id: Generated<number>;
  project_id: number;
  /** The newest of its events': retention deletes the block after all of them. */
  received_at: number;
  payload: Buffer;
}

export interface OutcomeTable {
  project_id: number;
  /** Start of the hour, ms. */
  hour: number;
  category: string;
  outcome: string;
  reason: string;
  quantity: number;
}

export interface IngestQueueTable {
  id: Generated<number>;
  project_id: number;
  key_id: number;
  received_at: number;
  /** "envelope" or "store" (a legacy JSON event body). */
  kind: string;
  body: Buffer;
}

/**
 * On SQLite the queue lives in its own file; the id of the last queue row whose effects were
 * committed here is kept in this table, in the same transaction as the effects, which is
 * what makes processing exactly-once across the two files.
 */
export interface WorkerStateTable {
  name: string;
  value: number;
}

/** A log container stored, by a hash of its bytes, so an SDK's retry is not (031-ingest-once.ts). */
export interface LogContainerTable {
  project_id: number;
  hash: string;
  received_at: number;
}

/** An issue deleted whose events are still being deleted (028-issue-deletions.ts). */
export interface IssueDeletionTable {
  issue_id: number;
  deleted_at: number;
}

/** A queued envelope the store stage failed to write even alone (026-dead-letters.ts). */
export interface DeadLetterTable {
  id: Generated<number>;
  project_id: number;
  key_id: number;
  received_at: number;
  kind: string;
  body: Buffer;
  error: string;
  attempts: number;
  failed_at: number;
}

/** One span: the segment of a transaction, its child spans, or a streamed span. */
export interface SpanTable {
  id: Generated<number>;
  project_id: number;
  /** 32 lowercase hex characters. */
  trace_id: string;
  /** 16 lowercase hex characters. */
  span_id: string;
  parent_span_id: string | null;
  /** The span id of the segment (transaction) the span belongs to. */
  segment_id: string | null;
  /** The transaction's event id; for a streamed segment span, one made at ingest. */
  event_id: string | null;
  is_segment: number;
  name: string;
  /** The segment's name (Sentry's `transaction`). */
  segment_name: string | null;
  op: string | null;
  description: string | null;
  status: string | null;
  /** Milliseconds with fractions (double). */
  start_timestamp: number;
  end_timestamp: number;
  duration: number;
  release: string | null;
  environment: string | null;
  /** JSON object of the span's data/attributes, bounded in size. */
  data: string | null;
  received_at: number;
}

/**
 * One trace's spans of one project and environment, summed up by the store stage (migration
 * 024): what the trace list shows without reading the spans.
 */
export interface TraceSummaryTable {
  trace_id: string;
  project_id: number;
  /** '' for spans without an environment. */
  environment: string;
  /** The earliest start and the latest end of the spans, ms with fractions. */
  start_timestamp: number;
  end_timestamp: number;
  span_count: number;
  /** 0: the root is a span without a parent; 1: a transaction with one; 2: none received. */
  root_rank: number;
  root_start: number;
  /** The root's transaction name (or span name) and op. */
  root_name: string | null;
  root_op: string | null;
  /** The newest span's arrival, for retention. */
  received_at: number;
}

export interface LogItemTable {
  id: Generated<number>;
  project_id: number;
  /** Milliseconds with fractions (double). */
  timestamp: number;
  trace_id: string | null;
  span_id: string | null;
  /** trace, debug, info, warn, error or fatal. */
  severity: string;
  /** OpenTelemetry's 1–24. */
  severity_number: number;
  body: string;
  /** JSON object of the log's attributes, bounded in size. */
  attributes: string | null;
  release: string | null;
  environment: string | null;
  received_at: number;
}

/**
 * SQLite only (migration 023): the FTS5 trigram index of log bodies, contentless, `rowid` =
 * `log_items.id`, kept by triggers on `log_items`. PostgreSQL has a pg_trgm index instead.
 */
export interface LogSearchTable {
  rowid: number;
  body: string;
}

/** Log counts per project, minute of the log's timestamp and severity (migration 018). */
export interface LogVolumeTable {
  project_id: number;
  minute: number;
  severity: string;
  count: number;
}

/**
 * Transactions (segment spans) per project, name, environment and release ('' for none) and
 * minute or hour (`span_ms`, `start` its first ms), kept by the store stage (migration 025).
 */
export interface TransactionRollupTable {
  project_id: number;
  /** 60,000 (minute) or 3,600,000 (hour). */
  span_ms: number;
  start: number;
  name: string;
  environment: string;
  release: string;
  count: number;
  /** Status set and not ok (src/performance/stats.ts). */
  failures: number;
  duration_sum: number;
  duration_min: number;
  duration_max: number;
  /** The durations' buckets (src/performance/duration-sketch.ts). */
  sketch: Buffer;
}

/** Child spans of transactions by op, per minute or hour (migration 025). */
export interface TransactionOpRollupTable {
  project_id: number;
  span_ms: number;
  start: number;
  /** The transaction's name (the spans' segment_name). */
  name: string;
  environment: string;
  release: string;
  /** The span's op, `default` when it has none. */
  op: string;
  count: number;
  duration_sum: number;
}

/** Session counts per project, release, environment ('' for none) and hour of start. */
export interface ReleaseSessionTable {
  project_id: number;
  release: string;
  environment: string;
  hour: number;
  sessions: number;
  /** Sessions that saw an error, crashed and abnormal ones included. */
  errored: number;
  crashed: number;
  abnormal: number;
  /** Distinct users (did) among this bucket's sessions. */
  users: number;
}

export interface ReleaseSessionMemberTable {
  project_id: number;
  release: string;
  environment: string;
  hour: number;
  /** crashed_user: the did of a crashed session, for crash-free users. */
  kind: "user" | "crashed_user" | "errored" | "crashed" | "abnormal";
  value: string;
}

export type MonitorStatus = "active" | "ok" | "error" | "missed";

export interface MonitorTable {
  id: Generated<number>;
  project_id: number;
  slug: string;
  name: string;
  schedule_type: "crontab" | "interval" | null;
  schedule: string | null;
  schedule_unit: string | null;
  timezone: string | null;
  /** Minutes. */
  checkin_margin: number | null;
  max_runtime: number | null;
  status: MonitorStatus;
  last_checkin: number | null;
  next_checkin: number | null;
  created_at: number;
  /** 1 when muted from the crons page (migration 018). */
  muted: Generated<number>;
  /** Migration 020 (src/alerts/delivery/monitor-alerts.ts): JSON actions; null → email members. */
  alert_actions: Generated<string | null>;
  alert_failure_threshold: Generated<number>;
  alert_failures: Generated<number>;
  alert_state: Generated<string>;
  alert_incident: Generated<number>;
  alert_secret: Generated<string | null>;
}

export type CheckInStatus = "ok" | "error" | "in_progress" | "missed";

export interface CheckInTable {
  id: Generated<number>;
  project_id: number;
  monitor_id: number;
  check_in_id: string;
  status: CheckInStatus;
  /** Milliseconds. */
  duration: number | null;
  environment: string | null;
  release: string | null;
  received_at: number;
  updated_at: number;
  expected_at: number | null;
}

export interface FeedbackTable {
  id: Generated<number>;
  project_id: number;
  event_id: string;
  associated_event_id: string | null;
  name: string | null;
  email: string | null;
  message: string;
  url: string | null;
  source: "feedback" | "user_report";
  received_at: number;
  /** The inbox's triage state (migration 019). */
  status: Generated<FeedbackStatus>;
}

export type FeedbackStatus = "open" | "resolved" | "spam";

export interface AttachmentTable {
  id: Generated<number>;
  project_id: number;
  event_id: string;
  filename: string;
  content_type: string | null;
  attachment_type: string;
  size: number;
  sha256: string;
  received_at: number;
  /** Relative to the SQLite file's directory. */
  path: string | null;
  data: Buffer | null;
}

/** See migration 010 and src/audit/. */
export interface AuditLogTable {
  id: Generated<number>;
  organization_id: number;
  actor_user_id: string | null;
  actor_label: string;
  action: string;
  target: string | null;
  details: string | null;
  ip_address: string | null;
  created_at: number;
}

/** Issue search and bulk triage (migration 014, src/issues/search/, src/issues/bulk/). */
export interface IssueBookmarkTable {
  issue_id: number;
  user_id: string;
  created_at: number;
}

/** Lowercase search terms of an issue, a few rows per issue (src/ingest/store/issue-search.ts). */
export interface IssueSearchTable {
  id: Generated<number>;
  issue_id: number;
  body: string;
}

/** A fingerprint merged into another issue (issue_id) or discarded (tombstone_id). */
export interface IssueHashTable {
  project_id: number;
  fingerprint: string;
  issue_id: number | null;
  tombstone_id: number | null;
  created_at: number;
}

/** What a "delete and discard" removed, so it can be listed and undone. */
export interface IssueTombstoneTable {
  id: Generated<number>;
  project_id: number;
  title: string;
  culprit: string | null;
  level: string;
  type: string;
  value: string;
  metadata: string;
  actor_user_id: string | null;
  actor_label: string;
  created_at: number;
}

/** The fingerprint of an event moved by a merge (events.id), for unmerge. */
export interface EventHashTable {
  event_id: number;
  project_id: number;
  fingerprint: string;
  received_at: number;
}

/** A saved issue search: a user's own (user_id), or the organization's (user_id null). */
export interface SavedSearchTable {
  id: Generated<number>;
  organization_id: number;
  user_id: string | null;
  name: string;
  query: string;
  sort: string | null;
  created_by: string | null;
  created_at: number;
}

/**
 * Data safety settings of a project (migration 016; src/projects/data-settings.ts), merged
 * into ProjectTable here so the table's other columns stay where they were. Booleans as 0/1,
 * lists and the inbound filters as JSON text.
 */
export interface ProjectTable {
  scrub_data: Generated<number>;
  scrub_defaults: Generated<number>;
  scrub_ip_addresses: Generated<number>;
  sensitive_fields: Generated<string>;
  safe_fields: Generated<string>;
  allowed_domains: Generated<string>;
  inbound_filters: Generated<string>;
}

/** One entry of an issue's timeline: a comment or a change (see migration 015). */
export interface IssueActivityTable {
  id: Generated<number>;
  issue_id: number;
  kind: string;
  user_id: string | null;
  data: string | null;
  created_at: number;
  updated_at: number | null;
}

/** When each release of a project was first seen: orders releases that are not semver. */
export interface ReleaseFirstSeenTable {
  project_id: number;
  version: string;
  first_seen: number;
}

export interface InvitationTable {
  id: Generated<number>;
  organization_id: number;
  email: string;
  role: "owner" | "admin" | "member" | "viewer";
  token_hash: string;
  invited_by_user_id: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by_user_id: string | null;
  revoked_at: number | null;
}

/** An organization's OpenID Connect provider (src/sso/). */
export interface SsoProviderTable {
  organization_id: number;
  issuer: string;
  client_id: string;
  client_secret: string;
  allowed_domains: string;
  default_role: "admin" | "member" | "viewer";
  required: Generated<number>;
  created_at: number;
  updated_at: number;
}

/** Alerts (migration 012, src/alerts/). */
export interface AlertRuleTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number;
  name: string;
  environment: string | null;
  action_match: string;
  filter_match: string;
  frequency: number;
  conditions: string;
  filters: string;
  actions: string;
  secret: string;
  status: Generated<string>;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface AlertRuleFireTable {
  rule_id: number;
  issue_id: number;
  last_fired_at: number;
}

export interface IssueMinuteCountTable {
  issue_id: number;
  minute: number;
  events: number;
}

export interface AlertOutboxTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number | null;
  rule_id: number | null;
  issue_id: number | null;
  monitor_id: number | null;
  event_id: string | null;
  reason: string;
  action: string;
  dedupe_key: string;
  delivery_id: string;
  status: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: number;
  claimed_until: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  /** Migration 020: the claiming sender's token, the storm guard's hold and digest. */
  claimed_by: Generated<string | null>;
  held_hour: Generated<number | null>;
  digest_id: Generated<number | null>;
  storm_key: Generated<string | null>;
}

/** Storm guard (migration 020): messages sent per rule/monitor and channel and hour. */
export interface AlertStormCountTable {
  storm_key: string;
  hour: number;
  sent: number;
}

/** Per-user alert email settings (migration 020, src/alerts/delivery/settings.ts). */
export interface NotificationSettingTable {
  user_id: string;
  none: Generated<number>;
  assigned: Generated<number>;
  projects: Generated<string>;
  updated_at: number;
}

export interface AlertDeliveryAttemptTable {
  id: Generated<number>;
  outbox_id: number;
  attempted_at: number;
  duration_ms: number;
  http_status: number | null;
  outcome: string;
  error: string | null;
}

/** See migration 017 and src/sourcemaps/: chunks waiting for their bundle. */
export interface UploadChunkTable {
  organization_id: number;
  sha1: string;
  size: number;
  /** Relative to the SQLite file's directory. */
  path: string | null;
  data: Buffer | null;
  created_at: number;
}

export type ArtifactBundleState = "created" | "assembling" | "ok" | "error";

export interface ArtifactBundleTable {
  id: Generated<number>;
  organization_id: number;
  checksum: string;
  state: ArtifactBundleState;
  detail: string | null;
  release: string | null;
  dist: string | null;
  size: number;
  file_count: number;
  /** JSON array of strings. */
  debug_ids: string;
  /** JSON array of chunk SHA-1s, until assembled. */
  chunks: string;
  path: string | null;
  data: Buffer | null;
  uploaded_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface ArtifactBundleProjectTable {
  bundle_id: number;
  project_id: number;
}

export interface ArtifactBundleFileTable {
  id: Generated<number>;
  bundle_id: number;
  project_id: number;
  entry: string;
  url: string;
  type: string;
  debug_id: string | null;
  release: string | null;
  dist: string | null;
  /** JSON object. */
  headers: string;
  size: number;
}

/** Releases the CLI creates (`sentry-cli releases new`) and finalizes. */
export interface ReleaseTable {
  id: Generated<number>;
  organization_id: number;
  version: string;
  ref: string | null;
  url: string | null;
  date_created: number;
  date_released: number | null;
}

export interface ReleaseProjectTable {
  release_id: number;
  project_id: number;
}

export interface ReleaseDeployTable {
  id: Generated<number>;
  release_id: number;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: number | null;
  date_finished: number;
}

export interface ApiTokenTable {
  id: Generated<number>;
  kind: "org" | "user";
  organization_id: number | null;
  user_id: string | null;
  name: string;
  token_hash: string;
  token_last_characters: string;
  scopes: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Distinct users of an issue per minute (migration 022), for unique-user conditions. */
export interface IssueMinuteUserTable {
  issue_id: number;
  minute: number;
  user_key: string;
}

/** Migration 030 (src/uptime/): an HTTP(S) check run by the worker role every interval. */
export interface UptimeMonitorTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number;
  name: string;
  /** http: requested by the worker; heartbeat: pinged at /api/uptime/heartbeat/<token>/. */
  kind: Generated<"http" | "heartbeat">;
  heartbeat_token: string | null;
  last_ping_at: number | null;
  url: string;
  method: string;
  /** JSON list of [name, value]. */
  headers: string;
  body: string | null;
  interval_seconds: number;
  timeout_ms: number;
  /** JSON list of [low, high] status code ranges that count as up. */
  expected_status: string;
  body_contains: string | null;
  tls_warning_days: number;
  failure_threshold: number;
  recovery_threshold: number;
  owner: string | null;
  status: "active" | "disabled";
  state: "pending" | "up" | "down";
  /** Consecutive failed / succeeded checks, for the thresholds. */
  failures: number;
  successes: number;
  /** The claim: moved on with a compare-and-set by the worker that runs the check. */
  next_check_at: number;
  last_check_at: number | null;
  /** The open incident while down. */
  incident_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface UptimeCheckTable {
  id: Generated<number>;
  project_id: number;
  monitor_id: number;
  started_at: number;
  ok: number;
  status_code: number | null;
  duration_ms: number;
  dns_ms: number | null;
  connect_ms: number | null;
  tls_ms: number | null;
  first_byte_ms: number | null;
  error: string | null;
  cert_expires_at: number | null;
  trace_id: string | null;
}

export interface UptimeIncidentTable {
  id: Generated<number>;
  project_id: number;
  monitor_id: number;
  started_at: number;
  resolved_at: number | null;
  issue_id: number | null;
  error: string | null;
}

/** Migration 030: an organization's public status page (src/uptime/status-page.ts). */
export interface StatusPageTable {
  id: Generated<number>;
  organization_id: number;
  slug: string;
  title: string;
  enabled: number;
  updated_at: number;
}

export interface StatusPageMonitorTable {
  status_page_id: number;
  monitor_id: number;
  position: number;
  show_url: number;
}
