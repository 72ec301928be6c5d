import type { NormalizationError } from "../ingest/process/lenient";

/**
 * The stored shape of an error event: Sentry's event schema (snake_case field names), with
 * every field validated, bounded and given its canonical form. This is what is compressed
 * into `events.payload` and what the read API turns into Sentry's event response.
 */
export type Level = "fatal" | "error" | "warning" | "info" | "debug";

export interface Frame {
  filename?: string;
  abs_path?: string;
  function?: string;
  raw_function?: string;
  module?: string;
  package?: string;
  platform?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  context_line?: string;
  pre_context?: string[];
  post_context?: string[];
  vars?: Record<string, unknown>;
  instruction_addr?: string;
  /** Set by symbolication (src/ingest/process/symbolicate/): the map the frame came from. */
  data?: { sourcemap?: string; symbolicated?: boolean };
}

export interface Stacktrace {
  /** Oldest call first, as Sentry sends them: the crashing frame is last. */
  frames: Frame[];
}

export interface Mechanism {
  type?: string;
  handled?: boolean;
  synthetic?: boolean;
  description?: string;
  exception_id?: number;
  parent_id?: number;
  is_exception_group?: boolean;
  source?: string;
}

export interface ExceptionValue {
  type?: string;
  value?: string;
  module?: string;
  thread_id?: string;
  mechanism?: Mechanism;
  stacktrace?: Stacktrace;
  /** The frames as the SDK sent them, when symbolication mapped `stacktrace`. */
  raw_stacktrace?: Stacktrace;
}

export interface Breadcrumb {
  timestamp?: number;
  type?: string;
  category?: string;
  level?: string;
  message?: string;
  data?: unknown;
}

export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
  name?: string;
  geo?: unknown;
  data?: unknown;
}

export interface EventRequest {
  url?: string;
  method?: string;
  query_string?: unknown;
  headers?: [string, string][];
  cookies?: unknown;
  data?: unknown;
  env?: unknown;
}

export interface EventSdk {
  name?: string;
  version?: string;
  integrations?: string[];
  packages?: { name?: string; version?: string }[];
}

export interface NormalizedEvent {
  event_id: string;
  /** Seconds since the epoch, as in Sentry's protocol. */
  timestamp: number;
  received: number;
  level: Level;
  platform: string;
  logger?: string;
  transaction?: string;
  server_name?: string;
  release?: string;
  dist?: string;
  environment?: string;
  /** The formatted message (logentry.formatted, else logentry.message, else message). */
  message?: string;
  logentry?: { message?: string; formatted?: string; params?: unknown };
  exception?: { values: ExceptionValue[] };
  stacktrace?: Stacktrace;
  threads?: {
    values: {
      id?: string;
      name?: string;
      crashed?: boolean;
      current?: boolean;
      stacktrace?: Stacktrace;
    }[];
  };
  tags: [string, string][];
  contexts: Record<string, unknown>;
  user?: EventUser;
  request?: EventRequest;
  sdk?: EventSdk;
  breadcrumbs: Breadcrumb[];
  fingerprint?: string[];
  extra?: Record<string, unknown>;
  modules?: Record<string, string>;
  errors: NormalizationError[];
  /** What ingest changed and why (scrubbing, clock), in Sentry's `_meta` shape; events/meta.ts. */
  _meta?: Record<string, unknown>;
}
