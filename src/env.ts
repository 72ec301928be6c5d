import { z } from "zod";

/**
 * The environment, validated once. Every setting Faultline reads comes from here so that a
 * typo in a variable name fails at start instead of silently using a default.
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /** Unset → ./data/faultline.db; `file:<path>` → that SQLite file; `postgres://…` → PostgreSQL. */
  DATABASE_URL: z.string().optional(),
  /** Public base URL used when printing DSNs, e.g. https://faultline.example.com */
  FAULTLINE_URL: z.string().url().optional(),
  FAULTLINE_ROLE: z.enum(["all", "web", "ingest", "worker"]).default("all"),
  FAULTLINE_DATA_DIR: z.string().default("./data"),
  /** Until accounts exist this token has full rights on the read API. */
  FAULTLINE_API_TOKEN: z.string().min(1).optional(),
  /** Worker threads that process the queue in this process (role all/worker). */
  FAULTLINE_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  /**
   * SQLite synchronous mode for the ingest queue. `normal` survives a killed process (the WAL
   * is in the OS page cache); `full` also survives power loss, at the price of an fsync per
   * group commit.
   */
  FAULTLINE_SQLITE_SYNC: z.enum(["normal", "full"]).default("normal"),
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
