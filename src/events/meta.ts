import type { NormalizationError } from "../ingest/process/lenient";
import { bag } from "../ingest/process/lenient";
import { SOURCEMAP_ERRORS } from "../ingest/process/symbolicate/errors";

/**
 * Reading an event's `_meta` (written by ingest only: scrub/meta.ts, clock/clock-drift.ts):
 * what was filtered where and why, and the processing errors it holds, for the event page and
 * the API. The tree is bounded like any stored data before anyone reads it.
 */
export type MetaTree = Record<string, unknown>;

export interface MetaRemark {
  rule: string;
  kind: "s" | "x";
}

export interface FilteredField {
  /** Keys from the event's root, as the SDK sent them. */
  path: string[];
  remarks: MetaRemark[];
  /** The original value's length (characters; items for a list, keys for an object). */
  length?: number;
}

const LIMITS = { depth: 12, keys: 200, items: 200, stringLength: 512 };

export function boundedMeta(raw: unknown): MetaTree | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const meta = bag(raw, LIMITS);
  return meta && typeof meta === "object" ? (meta as MetaTree) : undefined;
}

function entryOf(node: unknown): Record<string, unknown> | undefined {
  if (!node || typeof node !== "object") return undefined;
  const e = (node as Record<string, unknown>)[""];
  return e && typeof e === "object" && !Array.isArray(e)
    ? (e as Record<string, unknown>)
    : undefined;
}

function walk(
  node: unknown,
  path: string[],
  visit: (path: string[], entry: Record<string, unknown>) => void,
  depth = 0,
) {
  if (!node || typeof node !== "object" || Array.isArray(node) || depth > 12) return;
  const entry = entryOf(node);
  if (entry) visit(path, entry);
  for (const key of Object.keys(node)) {
    if (key === "") continue;
    walk((node as Record<string, unknown>)[key], [...path, key], visit, depth + 1);
  }
}

/** Every filtered or removed field, in the tree's order. */
export function filteredFields(meta: MetaTree | undefined): FilteredField[] {
  const out: FilteredField[] = [];
  walk(meta, [], (path, entry) => {
    if (!Array.isArray(entry.rem)) return;
    const remarks = entry.rem.flatMap((r): MetaRemark[] =>
      Array.isArray(r) && typeof r[0] === "string" && (r[1] === "s" || r[1] === "x")
        ? [{ rule: r[0], kind: r[1] }]
        : [],
    );
    if (remarks.length > 0)
      out.push({ path, remarks, length: typeof entry.len === "number" ? entry.len : undefined });
  });
  return out;
}

const ERROR_TYPES = new Set<string>([
  "clock_drift",
  "past_timestamp",
  "future_timestamp",
  // A value ingest repaired so that a database could store it (ingest/process/repair.ts).
  "invalid_data",
  ...SOURCEMAP_ERRORS,
]);

/** The processing errors of `_meta`, as Sentry's event `errors` lists them. */
export function metaErrors(meta: MetaTree | undefined): NormalizationError[] {
  const out: NormalizationError[] = [];
  walk(meta, [], (path, entry) => {
    if (!Array.isArray(entry.err)) return;
    for (const e of entry.err) {
      const [type, data] = Array.isArray(e) ? e : [e];
      if (typeof type !== "string" || !ERROR_TYPES.has(type)) continue;
      const d = data && typeof data === "object" ? (data as Record<string, unknown>) : {};
      const value =
        typeof d.value === "string"
          ? d.value
          : typeof d.sdk_time === "string"
            ? `client clock ${d.sdk_time}, server ${String(d.server_time)}`
            : undefined;
      out.push({
        type: type as NormalizationError["type"],
        name: path.join("."),
        ...(value === undefined ? {} : { value }),
      });
    }
  });
  return out;
}

/** What a rule id means, for people. */
export function describeRule(rule: string): string {
  switch (rule) {
    case "@password:filter":
      return "its key looks sensitive (password, token, secret, cookie, …)";
    case "strip-fields":
      return "its key matches one of the project's sensitive fields";
    case "@creditcard:filter":
      return "it holds a credit card number";
    case "@bearer:filter":
      return "it holds a Bearer credential";
    case "@pemkey:filter":
      return "it holds a private key";
    case "@urlauth:filter":
      return "it holds a password in a URL";
    case "@awskey:filter":
      return "it holds an AWS access key";
    case "@ip:remove":
      return "IP addresses are scrubbed in this project";
    default:
      return rule;
  }
}
