import { z } from "zod";

/**
 * The environment, validated once. Every setting Faultline reads comes from here so that a
 * typo in a variable name fails at start instead of silently using a default.
 */
export const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /** Unset → ./data/faultline.db; `file:<path>` → that SQLite file; `postgres://…` → PostgreSQL. */
  DATABASE_URL: z.string().optional(),
  /** Public base URL used when printing DSNs, e.g. https://faultline.example.com */
  FAULTLINE_URL: z.string().url().optional(),
  FAULTLINE_ROLE: z.enum(["all", "web", "ingest", "worker"]).default("all"),
  /**
   * PostgreSQL connections each thread that uses the database may hold: the accepting thread,
   * the web thread and each worker thread have a pool of their own, so a process in role all
   * with one worker holds up to 3× this many.
   */
  FAULTLINE_DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  FAULTLINE_DATA_DIR: z.string().default("./data"),
  /** The largest artifact bundle (source maps) an upload may assemble, in bytes. */
  FAULTLINE_SOURCEMAP_MAX_BUNDLE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 * 1024 ** 3)
    .default(100 * 1024 * 1024),
  /** Artifact bundles older than this many days are deleted. */
  FAULTLINE_SOURCEMAP_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Until accounts exist this token has full rights on the read API. */
  FAULTLINE_API_TOKEN: z.string().min(1).optional(),
  /** Worker threads that process the queue in this process (role all/worker). */
  FAULTLINE_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  /**
   * Threads that parse, normalize and compress for each worker thread (0: the worker does it
   * itself). With one, a batch is processed while the previous one is written, and the
   * worker takes a smaller share itself. In role all on 2 cores that bought little: a worker
   * alone drained 6,600–8,000 events/s on one core (with one processor ~8,500 on both), while
   * the extra isolate, the copies between threads and their garbage cost ~65–95 MB of peak
   * RSS and CPU the accepting thread needed. A worker-only process (role worker) has both
   * cores to itself: there one processor drained 100k queued errors at ~3,400 events/s
   * against ~1,900–2,900 without (a slower machine). More cores: raise it.
   */
  FAULTLINE_PROCESSORS: z.coerce.number().int().min(0).max(16).default(0),
  /**
   * Each worker thread keeps parsed source maps in an LRU bounded by this many bytes (their
   * decoded size: the 9 MB map of a 2 MB bundle takes ~20 MiB), keyed by project and debug
   * ID, so a map is parsed once, not per event (src/ingest/process/symbolicate/). A map
   * larger than the budget is kept alone. bench:ingest sourcemapped, 20 such maps in turn:
   * peak RSS 304-325 MiB at 64 MiB (144 without maps), 354 MiB at 128 MiB.
   */
  FAULTLINE_SOURCEMAP_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  /**
   * Role all runs processing at idle priority, behind accepting. A worker that has had work
   * for this long without catching up is put at normal priority until the queue is empty
   * (src/ingest/workers/worker-pool.ts): a burst of overload is absorbed by the queue, but other busy
   * processes cannot hold processing back for good. (3 s was too short: a 10 s full-speed
   * bench:ingest run starved the worker for 3.4 s and the raised worker then halved accepting.)
   * It also bounds how long processing is held while accepting is saturated.
   */
  FAULTLINE_WORKER_STARVED_SECONDS: z.coerce.number().min(0.5).default(30),
  /**
   * An OTLP request body after decompression (the wire cap is the envelopes' 20 MiB). OTLP is
   * decoded on the accepting thread to answer partial_success: 20 MiB of protobuf took 0.7 s
   * and 162 MiB of heap there. 20 MiB is also the OpenTelemetry Collector's own default.
   */
  FAULTLINE_OTLP_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(100 * 1024 ** 2)
    .default(20 * 1024 ** 2),
  /** Past this many envelopes waiting to be processed, ingest answers 429 instead of growing. */
  FAULTLINE_QUEUE_MAX_ENVELOPES: z.coerce.number().int().min(1).default(1_000_000),
  /** The same bound in bytes (decompressed envelopes waiting). */
  FAULTLINE_QUEUE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(4 * 1024 ** 3),
  /**
   * SQLite queue: bytes of envelopes per segment file before the next one is started (see
   * src/ingest/queue/segments.ts). The disk holds the backlog plus about one segment.
   */
  FAULTLINE_QUEUE_SEGMENT_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(32 * 1024 ** 2),
  /** Below this much free disk in the data directory, ingest refuses (503) and writes nothing. */
  FAULTLINE_MIN_FREE_DISK_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(512 * 1024 ** 2),
  /**
   * How often a worker deletes data past each project's retention (projects.retention_days);
   * 0 turns retention off. The first run starts a minute after the worker.
   */
  FAULTLINE_RETENTION_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(3600),
  /**
   * A deleted organization's data goes in batches of this many rows per statement, with this
   * pause between, so ingest for the other organizations keeps its pace (src/maintenance/org-deletion.ts).
   */
  FAULTLINE_ORG_DELETION_BATCH_ROWS: z.coerce.number().int().min(1).max(100_000).default(500),
  FAULTLINE_ORG_DELETION_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(20),
  /**
   * Durability of a SQLite install's ingest queue files. `normal` survives a killed process
   * (what was written is in the OS page cache); `full` also survives power loss, at the price
   * of an fdatasync per group commit.
   */
  FAULTLINE_SQLITE_SYNC: z.enum(["normal", "full"]).default("normal"),
  /** Share of Faultline's own requests and page loads that are traced into its `faultline` project. */
  FAULTLINE_SELF_TRACES_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(0.1),
  /** `1` serves the pages under /e2e/ that throw on purpose, for the browser tests; else they 404. */
  FAULTLINE_E2E_ROUTES: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1"),
  /**
   * `1` when Faultline runs behind a reverse proxy that sets X-Forwarded-For: the client's
   * address is then its first entry. Otherwise the header is the client's to invent, so the
   * socket address is used (sign-in rate limits are keyed by it).
   */
  FAULTLINE_TRUST_PROXY: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1"),
  /**
   * Signs session cookies. Unset → a random secret created once and kept in the database, so
   * every process of one installation shares it.
   */
  FAULTLINE_AUTH_SECRET: z.string().min(32).optional(),
  /**
   * Where mail goes: `smtp://user:pass@host:587` (STARTTLS when the server offers it) or
   * `smtps://…:465`. Unset → Faultline sends no mail and says so where mail would be sent.
   */
  FAULTLINE_SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\/[^/]/.test(v) && URL.canParse(v), {
      message: "must be smtp://[user:pass@]host[:port] or smtps://…",
    })
    .optional(),
  /**
   * A session not used for this many hours ends (it is extended while used). Default a week.
   */
  FAULTLINE_SESSION_IDLE_HOURS: z.coerce.number().int().min(1).max(8760).default(168),
  /**
   * A session ends this many days after its sign-in, however much it is used. Default 30.
   */
  FAULTLINE_SESSION_MAX_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /**
   * `1` lets an organization's single sign-on issuer be on a private or loopback address (an
   * identity provider inside the company network). Off, an issuer URL is refused unless its
   * host resolves to public addresses only, so an owner cannot make the server probe inside.
   */
  FAULTLINE_SSO_ALLOW_PRIVATE_ISSUERS: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1"),
  /**
   * `1` lets every outbound target a user can name (alert webhooks, uptime checks) reach
   * loopback, link-local, private and other reserved addresses (receivers inside the company
   * network). Off, such URLs are refused when saved and again at each connection, after DNS
   * (src/alerts/delivery/ssrf.ts, src/uptime/probe.ts).
   */
  FAULTLINE_ALLOW_PRIVATE_WEBHOOKS: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1"),
  /** Per alert rule (or cron monitor) and channel, messages per hour; past it, an hourly digest. */
  FAULTLINE_ALERTS_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(60),
  /**
   * How long a sender's claim on an alert delivery lasts: a sender killed mid-delivery leaves
   * it to another (or to itself after a restart) once this has passed.
   */
  FAULTLINE_ALERT_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(120),
  /** The From of Faultline's mail. */
  FAULTLINE_EMAIL_FROM: z.string().min(3).default("Faultline <faultline@localhost>"),
  /** Live tail of logs (src/logs/tail.ts): subscribers per process, per organization, and
   * the bytes queued for one subscriber before a client that does not read is dropped. */
  FAULTLINE_TAIL_MAX_SUBSCRIBERS: z.coerce.number().int().min(1).default(200),
  FAULTLINE_TAIL_MAX_PER_ORG: z.coerce.number().int().min(1).default(25),
  FAULTLINE_TAIL_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  /**
   * How long the logs page counts a histogram no index answers (a common term, key:value)
   * before it answers; the browser then counts the older buckets through the volume API.
   */
  FAULTLINE_LOGS_PAGE_COUNT_MS: z.coerce.number().min(0).max(60_000).default(40),
  /**
   * Tests only (tests/upgrade.test.ts): `fail-after:<migration>` fails the migration run just
   * after that migration's changes; `hold-after:<migration>` stops there, inside the run's
   * transaction, so a test can kill -9 the process mid-upgrade (src/db/migrate.ts).
   */
  FAULTLINE_TEST_MIGRATION_HOOK: z
    .string()
    .regex(/^(fail|hold)-after:[\w-]+$/)
    .optional(),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = EnvSchema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
      throw new Error(`Invalid environment:\n  ${problems.join("\n  ")}`);
    }
    cached = parsed.data;
  }
  return cached;
}
