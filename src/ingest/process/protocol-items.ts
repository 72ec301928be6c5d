/**
 * The envelope items besides events that the process stage hands to the store stage:
 * session updates, check-ins, user feedback and attachments. Plain data only, because a
 * batch crosses from a processor thread to the worker thread (attachment bytes arrive on
 * the other side as Uint8Arrays).
 */
export interface SessionRecord {
  projectId: number;
  release: string;
  /** '' when the SDK sent none. */
  environment: string;
  /** Start of the hour the session(s) started in, ms. */
  hour: number;
  /** Sessions this record starts: 1 for an `init` update, the total for an aggregate. */
  started: number;
  /** Aggregates only: counts to add as they are (single updates are counted by `sid`). */
  errored: number;
  crashed: number;
  abnormal: number;
  /** Single updates: the session id, counted once per kind it reaches. */
  sid?: string;
  kinds: ("errored" | "crashed" | "abnormal")[];
  /** The distinct user (did), if any. */
  did?: string;
}

export interface MonitorConfig {
  scheduleType: "crontab" | "interval";
  schedule: string;
  scheduleUnit: string | null;
  timezone: string | null;
  checkinMargin: number | null;
  maxRuntime: number | null;
}

export interface CheckInRecord {
  projectId: number;
  receivedAt: number;
  slug: string;
  checkInId: string;
  status: "ok" | "error" | "in_progress";
  /** Milliseconds, when the SDK measured it. */
  duration: number | null;
  environment: string | null;
  release: string | null;
  config: MonitorConfig | null;
}

export interface FeedbackRecord {
  projectId: number;
  receivedAt: number;
  eventId: string;
  associatedEventId: string | null;
  name: string | null;
  email: string | null;
  message: string;
  url: string | null;
  source: "feedback" | "user_report";
}

export interface AttachmentRecord {
  projectId: number;
  receivedAt: number;
  eventId: string;
  filename: string;
  contentType: string | null;
  attachmentType: string;
  sha256: string;
  data: Uint8Array;
}

export interface ProtocolItems {
  sessions: SessionRecord[];
  checkIns: CheckInRecord[];
  feedback: FeedbackRecord[];
  attachments: AttachmentRecord[];
}

export function emptyProtocolItems(): ProtocolItems {
  return { sessions: [], checkIns: [], feedback: [], attachments: [] };
}

/** Appends `from` to `into` (the processor pool joins the shares of a batch). */
export function mergeProtocolItems(into: ProtocolItems, from: ProtocolItems): void {
  // Loops, not push(...): a large batch would exceed the arguments a call takes.
  for (const s of from.sessions) into.sessions.push(s);
  for (const c of from.checkIns) into.checkIns.push(c);
  for (const f of from.feedback) into.feedback.push(f);
  for (const a of from.attachments) into.attachments.push(a);
}

/** Sentry ids are 32 hex characters; SDKs sometimes send them as dashed UUIDs. */
export function hexId(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const id = raw.replaceAll("-", "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(id) ? id : undefined;
}
