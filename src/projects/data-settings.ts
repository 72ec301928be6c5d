import { z } from "zod";
import { type AuditActor, recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { invalidateKeyCaches } from "../ingest/accept/auth";
import { parseAllowedDomain } from "../ingest/accept/origins";
import { parseGlob } from "../ingest/process/filters/glob";
import {
  DEFAULT_FILTER_SETTINGS,
  type FilterSettings,
} from "../ingest/process/filters/inbound-filters";
import { announceProjectSettings, type IngestSettings } from "../ingest/process/project-settings";
import { DEFAULT_SCRUB_SETTINGS } from "../ingest/process/scrub/config";
import { parseSafeField } from "../ingest/process/scrub/safe-fields";

/**
 * A project's data-safety settings (migration 016): scrubbing (Sentry's Data Scrubber, on by
 * default), safe and extra sensitive fields, IP scrubbing, allowed domains, inbound filters,
 * and retention. Edited on the project settings page; read by the worker
 * (workers/project-settings-cache.ts) and the accepting thread (accept/auth.ts).
 */
export interface DataSettings {
  scrubData: boolean;
  scrubDefaults: boolean;
  scrubIpAddresses: boolean;
  sensitiveFields: string[];
  safeFields: string[];
  allowedDomains: string[];
  filters: FilterSettings;
  retentionDays: number;
}

export interface DataSettingsRow {
  scrub_data: number;
  scrub_defaults: number;
  scrub_ip_addresses: number;
  sensitive_fields: string;
  safe_fields: string;
  inbound_filters: string;
}

function stringList(json: string, fallback: string[]): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((e): e is string => typeof e === "string") : fallback;
  } catch {
    return fallback;
  }
}

export function parseFilters(json: string): FilterSettings {
  let v: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(json);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) v = parsed as typeof v;
  } catch {
    // a damaged column: Sentry's defaults
  }
  const flag = (key: string, fallback: boolean) =>
    typeof v[key] === "boolean" ? (v[key] as boolean) : fallback;
  const list = (key: string) =>
    Array.isArray(v[key])
      ? (v[key] as unknown[]).filter((e): e is string => typeof e === "string")
      : [];
  const d = DEFAULT_FILTER_SETTINGS;
  return {
    browserExtensions: flag("browser_extensions", d.browserExtensions),
    localhost: flag("localhost", d.localhost),
    webCrawlers: flag("web_crawlers", d.webCrawlers),
    legacyBrowsers: flag("legacy_browsers", d.legacyBrowsers),
    errorMessages: list("error_messages"),
    releases: list("releases"),
  };
}

function filtersJson(f: FilterSettings): string {
  return JSON.stringify({
    browser_extensions: f.browserExtensions,
    localhost: f.localhost,
    web_crawlers: f.webCrawlers,
    legacy_browsers: f.legacyBrowsers,
    error_messages: f.errorMessages,
    releases: f.releases,
  });
}

/** What the worker needs of a project row (project-settings-cache.ts). */
export function parseIngestSettings(row: DataSettingsRow): IngestSettings {
  return {
    scrub: {
      scrubData: row.scrub_data !== 0,
      scrubDefaults: row.scrub_defaults !== 0,
      scrubIpAddresses: row.scrub_ip_addresses !== 0,
      sensitiveFields: stringList(row.sensitive_fields, []),
      safeFields: stringList(row.safe_fields, []),
    },
    filters: parseFilters(row.inbound_filters),
  };
}

export async function readDataSettings(db: Db, projectId: number): Promise<DataSettings> {
  const row = await db.kysely
    .selectFrom("projects")
    .select([
      "scrub_data",
      "scrub_defaults",
      "scrub_ip_addresses",
      "sensitive_fields",
      "safe_fields",
      "allowed_domains",
      "inbound_filters",
      "retention_days",
    ])
    .where("id", "=", projectId)
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", "project not found");
  const ingest = parseIngestSettings(row);
  return {
    ...ingest.scrub,
    sensitiveFields: [...ingest.scrub.sensitiveFields],
    safeFields: [...ingest.scrub.safeFields],
    allowedDomains: stringList(row.allowed_domains, ["*"]),
    filters: ingest.filters,
    retentionDays: row.retention_days,
  };
}

/** Sentry's scrubbing defaults, for a project made before migration 016 had no row values. */
export const DEFAULT_DATA_SETTINGS: DataSettings = {
  ...DEFAULT_SCRUB_SETTINGS,
  sensitiveFields: [],
  safeFields: [],
  allowedDomains: ["*"],
  filters: DEFAULT_FILTER_SETTINGS,
  retentionDays: 90,
};

// ---- input: the settings form (FormData) and the API (JSON) share these checks ----

const MAX_ENTRIES = 200;

/** A list given one entry per line (or as a JSON array), each checked by `check`. */
function lines(what: string, check: (entry: string) => string | undefined) {
  return z
    .union([z.string().max(50_000), z.array(z.string().max(1000)).max(MAX_ENTRIES)])
    .optional()
    .transform((v, ctx) => {
      const entries = (Array.isArray(v) ? v : (v ?? "").split(/\r?\n/))
        .map((e) => e.trim())
        .filter((e) => e !== "");
      if (entries.length > MAX_ENTRIES) {
        ctx.addIssue({ code: "custom", message: `At most ${MAX_ENTRIES} ${what}` });
        return z.NEVER;
      }
      for (const entry of entries) {
        const problem = check(entry);
        if (problem) {
          ctx.addIssue({ code: "custom", message: problem });
          return z.NEVER;
        }
      }
      return [...new Set(entries)];
    });
}

const sensitiveField = (entry: string) =>
  entry.length > 100
    ? `sensitive field "${entry.slice(0, 40)}…" is over 100 characters`
    : /^[\p{L}\p{N}_.\- ]+$/u.test(entry)
      ? undefined
      : `sensitive field "${entry}": use letters, digits, spaces, _ - or . (it matches keys containing it)`;

const glob = (what: string) => (entry: string) => {
  const parsed = parseGlob(entry, what);
  return parsed.ok ? undefined : parsed.error;
};

const checkbox = z
  .union([z.literal("on"), z.literal("1"), z.literal("true"), z.boolean()])
  .optional()
  .transform((v) => v === true || v === "on" || v === "1" || v === "true");

export const dataSettingsSchema = z.object({
  scrubData: checkbox,
  scrubDefaults: checkbox,
  scrubIpAddresses: checkbox,
  sensitiveFields: lines("sensitive fields", sensitiveField),
  safeFields: lines("safe fields", (e) => {
    const parsed = parseSafeField(e);
    return parsed.ok ? undefined : parsed.error;
  }),
  allowedDomains: lines("allowed domains", (e) => {
    const parsed = parseAllowedDomain(e);
    return parsed.ok ? undefined : parsed.error;
  }),
  filterBrowserExtensions: checkbox,
  filterLocalhost: checkbox,
  filterWebCrawlers: checkbox,
  filterLegacyBrowsers: checkbox,
  filterErrorMessages: lines("error message patterns", glob("error message pattern")),
  filterReleases: lines("release patterns", glob("release pattern")),
  retentionDays: z.coerce
    .number("Enter a number of days")
    .int("Enter a whole number of days")
    .min(1, "Keep data at least 1 day")
    .max(3650, "At most 3650 days (10 years)"),
});
export type DataSettingsInput = z.output<typeof dataSettingsSchema>;

/** The settings page's form: the same fields and the project it names. */
export const dataSettingsFormSchema = dataSettingsSchema.extend({
  project: z.string().min(1).max(100),
});

export function toDataSettings(input: DataSettingsInput): DataSettings {
  return {
    scrubData: input.scrubData,
    scrubDefaults: input.scrubDefaults,
    scrubIpAddresses: input.scrubIpAddresses,
    sensitiveFields: input.sensitiveFields,
    safeFields: input.safeFields,
    allowedDomains: input.allowedDomains,
    filters: {
      browserExtensions: input.filterBrowserExtensions,
      localhost: input.filterLocalhost,
      webCrawlers: input.filterWebCrawlers,
      legacyBrowsers: input.filterLegacyBrowsers,
      errorMessages: input.filterErrorMessages,
      releases: input.filterReleases,
    },
    retentionDays: input.retentionDays,
  };
}

/** Which settings differ, as `{ name: { from, to } }` for the audit log. */
function changes(
  before: DataSettings,
  after: DataSettings,
): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  const flat = (s: DataSettings): Record<string, unknown> => {
    const { filters, ...rest } = s;
    return {
      ...rest,
      ...Object.fromEntries(Object.entries(filters).map(([k, v]) => [`filters.${k}`, v])),
    };
  };
  const a = flat(before);
  const b = flat(after);
  for (const key of Object.keys(b)) {
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) out[key] = { from: a[key], to: b[key] };
  }
  return out;
}

/**
 * Saves the settings and records what changed in the audit log, in one transaction; then
 * tells this process's ingest (keys carry the allowed domains, the worker the rest). Other
 * processes see the change within their caches' time to live (30 s and 10 s).
 */
export async function updateDataSettings(
  db: Db,
  project: { id: number; organizationId: number; slug: string },
  settings: DataSettings,
  actor: AuditActor,
): Promise<{ changed: string[] }> {
  const before = await readDataSettings(db, project.id);
  const diff = changes(before, settings);
  const changed = Object.keys(diff);
  if (changed.length === 0) return { changed };
  await db.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable("projects")
      .set({
        scrub_data: settings.scrubData ? 1 : 0,
        scrub_defaults: settings.scrubDefaults ? 1 : 0,
        scrub_ip_addresses: settings.scrubIpAddresses ? 1 : 0,
        sensitive_fields: JSON.stringify(settings.sensitiveFields),
        safe_fields: JSON.stringify(settings.safeFields),
        allowed_domains: JSON.stringify(settings.allowedDomains),
        inbound_filters: filtersJson(settings.filters),
        retention_days: settings.retentionDays,
      })
      .where("id", "=", project.id)
      .execute();
    await recordAudit(trx, {
      orgId: project.organizationId,
      actor,
      action: "project.settings_change",
      target: project.slug,
      details: diff,
    });
  });
  if (changed.includes("allowedDomains")) {
    const keys = await db.kysely
      .selectFrom("project_keys")
      .select("public_key")
      .where("project_id", "=", project.id)
      .execute();
    for (const k of keys) invalidateKeyCaches(k.public_key);
  }
  announceProjectSettings(project.id);
  return { changed };
}
