import { frameEnvelope } from "../src/ingest/accept/frame";
import { loadFixtures } from "../tests/helpers/fixtures";

/**
 * Demo traffic built from events the real SDKs sent (tests/fixtures/envelopes): each demo
 * issue gets its own exception type, message and in-app code path (which is what groups it),
 * and each event its own id, time, environment, release and user. A seeded PRNG makes two
 * runs produce the same data.
 */
export const DEMO_PROJECTS = [
  { slug: "web", name: "Web app", platform: "javascript", base: "browser" },
  { slug: "api", name: "API", platform: "node", base: "node" },
  { slug: "worker", name: "Background worker", platform: "node", base: "node" },
  { slug: "checkout", name: "Checkout", platform: "node", base: "node" },
  { slug: "billing", name: "Billing", platform: "node", base: "node" },
] as const;

const DAY = 86_400_000;
export const SPAN_DAYS = 30;
/** Releases over the 30 days, spread evenly over the projects (SEED_RELEASES). */
export const RELEASES = Number(process.env.SEED_RELEASES ?? 200);
/**
 * Ingest files anything older than 30 days at its receipt (clock-drift.ts): the oldest demo
 * data is this much younger than 30 days, so a seed that takes a while still lands in time.
 */
export const OLDEST_MARGIN_MS = 2 * 3_600_000;

const TYPES = [
  "TypeError",
  "Error",
  "RangeError",
  "SyntaxError",
  "ReferenceError",
  "ValidationError",
  "TimeoutError",
];
const MESSAGES = [
  (n: string) => `Cannot read properties of undefined (reading '${n}')`,
  (n: string) => `${n} is not a function`,
  (n: string) => `Request to /v1/${n} failed with status 502`,
  (n: string) => `Timed out after 30000 ms waiting for ${n}`,
  (n: string) => `Invalid ${n}: expected a string, received null`,
  (n: string) => `Maximum call stack size exceeded in ${n}`,
  (n: string) => `Unexpected token < in JSON at position 0 (${n})`,
  (n: string) => `${n} is not defined`,
  (n: string) => `Connection reset while writing ${n}`,
];
const VERBS = [
  "load",
  "save",
  "render",
  "parse",
  "fetch",
  "sync",
  "update",
  "resolve",
  "apply",
  "build",
  "send",
  "charge",
  "refund",
  "validate",
  "merge",
  "export",
  "import",
  "index",
  "notify",
  "schedule",
];
const NOUNS = [
  "User",
  "Cart",
  "Invoice",
  "Order",
  "Session",
  "Payment",
  "Profile",
  "Report",
  "Token",
  "Webhook",
  "Coupon",
  "Address",
  "Shipment",
  "Plan",
  "Team",
  "Comment",
  "Upload",
  "Search",
  "Metric",
  "Feed",
];
const AREAS = ["handlers", "services", "models", "jobs", "lib", "routes", "components", "utils"];
const ENVIRONMENTS = [
  ["production", 0.7],
  ["staging", 0.2],
  ["development", 0.1],
] as const;
const LEVELS = [
  ["error", 0.7],
  ["warning", 0.15],
  ["info", 0.1],
  ["fatal", 0.05],
] as const;

/** Mulberry32: small, fast, and good enough for demo data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pickWeighted<T extends string>(table: readonly (readonly [T, number])[], r: number): T {
  let acc = 0;
  for (const [value, weight] of table) {
    acc += weight;
    if (r < acc) return value;
  }
  return (table.at(-1) as readonly [T, number])[0];
}

export interface DemoIssue {
  index: number;
  project: number;
  type: string;
  message: string;
  level: string;
  area: string;
  fn: string;
}

/** Issue `index` (0-based): project index % 5, a code path unique within its project. */
export function demoIssue(index: number): DemoIssue {
  const project = index % DEMO_PROJECTS.length;
  const k = Math.floor(index / DEMO_PROJECTS.length);
  // Mixed radix: every k below 20 × 20 × 8 = 3,200 names a different (verb, noun, area).
  const verb = VERBS[k % VERBS.length] as string;
  const noun = NOUNS[Math.floor(k / VERBS.length) % NOUNS.length] as string;
  const area = AREAS[Math.floor(k / (VERBS.length * NOUNS.length)) % AREAS.length] as string;
  const r = prng(index + 1);
  const field = `${noun.toLowerCase()}${["Id", "Name", "Total", "Items", "Status"][k % 5]}`;
  return {
    index,
    project,
    type: TYPES[Math.floor(r() * TYPES.length)] as string,
    message: (MESSAGES[Math.floor(r() * MESSAGES.length)] as (n: string) => string)(field),
    level: pickWeighted(LEVELS, r()),
    area,
    fn: `${verb}${noun}`,
  };
}

type Json = Record<string, unknown>;

function baseEvents(): { node: Json; browser: Json } {
  const found: Partial<Record<"node" | "browser", Json>> = {};
  for (const f of loadFixtures()) {
    const kind =
      f.meta.sdk.includes("node") && !f.meta.sdk.includes("nextjs")
        ? "node"
        : f.meta.sdk.includes("browser")
          ? "browser"
          : undefined;
    if (!kind || found[kind]) continue;
    const framed = frameEnvelope(f.body);
    if (!framed.ok) continue;
    for (const item of framed.value.items) {
      if (item.header.type !== "event") continue;
      const event = JSON.parse(item.payload.toString()) as Json;
      const values = (event.exception as { values?: { stacktrace?: { frames?: unknown[] } }[] })
        ?.values;
      if (values?.at(-1)?.stacktrace?.frames?.length) found[kind] = event;
    }
  }
  if (!found.node || !found.browser)
    throw new Error("fixtures lack a node or browser exception event");
  for (const e of [found.node, found.browser]) {
    // The installed-modules list is most of a Node event's bytes and means nothing here.
    delete e.modules;
    if (Array.isArray(e.breadcrumbs)) e.breadcrumbs = e.breadcrumbs.slice(-5);
  }
  return { node: found.node, browser: found.browser };
}

export interface EventFactory {
  /**
   * The envelope for one event of `issue` at time `ts` (ms); `r` is the run's PRNG. With
   * `trace`, the event happened inside that span (what links an issue to its trace); else
   * it gets a trace of its own, as an SDK without a sampled transaction gives it.
   */
  envelope(
    issue: DemoIssue,
    ts: number,
    r: () => number,
    dsn: string,
    trace?: { traceId: string; spanId: string },
  ): string;
}

export function eventFactory(now: number): EventFactory {
  const bases = baseEvents();
  let counter = 0;
  const runId = Math.floor(now / 1000)
    .toString(16)
    .padStart(12, "0")
    .slice(-12);
  return {
    envelope(issue, ts, r, dsn, trace) {
      const project = DEMO_PROJECTS[issue.project] as (typeof DEMO_PROJECTS)[number];
      const event = structuredClone(bases[project.base]) as Json & {
        exception: { values: { type: string; value: string; stacktrace: { frames: Json[] } }[] };
      };
      counter++;
      const eventId = runId + counter.toString(16).padStart(20, "0");
      event.event_id = eventId;
      event.timestamp = ts / 1000;
      event.level = issue.level;
      event.environment = pickWeighted(ENVIRONMENTS, r());
      event.release = demoRelease(issue.project, ts, now);
      const contexts = (event.contexts ?? {}) as Json;
      contexts.trace = trace
        ? { trace_id: trace.traceId, span_id: trace.spanId }
        : { trace_id: eventId.replace(/^.{12}/, "5eed00000000"), span_id: eventId.slice(-16) };
      event.contexts = contexts;
      if (r() < 0.8) event.user = { id: `user-${Math.floor(r() * 3000)}`, ip_address: "{{auto}}" };
      else delete event.user;
      const top = event.exception.values.at(-1);
      if (top) {
        event.exception.values = [top];
        top.type = issue.type;
        top.value = issue.message;
        const file = `src/${issue.area}/${issue.fn.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.js`;
        let first = true;
        // The last frame is where it was thrown: that one carries the issue's own code path.
        for (const frame of [...top.stacktrace.frames].reverse()) {
          if (!frame.in_app) continue;
          frame.function = first ? issue.fn : `${issue.area}.handle`;
          frame.filename =
            project.base === "browser"
              ? `https://app.example.com/${file}`
              : `/srv/${project.slug}/${file}`;
          frame.abs_path = frame.filename;
          frame.module = `${project.slug}.${issue.area}`;
          first = false;
        }
      }
      const payload = JSON.stringify(event);
      const header = JSON.stringify({
        event_id: eventId,
        dsn,
        sent_at: new Date(now).toISOString(),
      });
      return `${header}\n${JSON.stringify({ type: "event", length: Buffer.byteLength(payload) })}\n${payload}\n`;
    },
  };
}

/** When event `i` of the run happens: spread over 30 days, denser towards now. */
export function demoTimestamp(r: () => number, now: number): number {
  const u = r();
  return Math.round(now - u * u * (SPAN_DAYS * DAY - OLDEST_MARGIN_MS));
}

/**
 * The release a project ran at `ts`: each project ships RELEASES / 5 releases at even
 * intervals over the 30 days (`api@1.0.0` … `api@1.39.0`), so errors, spans, logs and
 * sessions of one moment name the same release.
 */
export function demoRelease(project: number, ts: number, now: number, previous = false): string {
  const perProject = Math.max(1, Math.floor(RELEASES / DEMO_PROJECTS.length));
  const step = (SPAN_DAYS * DAY) / perProject;
  const k = Math.floor((ts - (now - SPAN_DAYS * DAY)) / step) - (previous ? 1 : 0);
  const slug = (DEMO_PROJECTS[project] as (typeof DEMO_PROJECTS)[number]).slug;
  return `${slug}@1.${Math.min(perProject - 1, Math.max(0, k))}.0`;
}
