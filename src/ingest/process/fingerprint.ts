import crypto from "node:crypto";
import type { ExceptionValue, Frame, NormalizedEvent } from "../../events/types";

/**
 * Grouping: which issue an event belongs to. In order of preference:
 *  1. the event's own `fingerprint`, where `{{ default }}` expands to the default components;
 *  2. the in-app frames of the exception stacks (module or normalized filename + function,
 *     never line numbers, so a deploy that shifts code does not split the issue);
 *  3. all frames when none is in-app;
 *  4. exception type + value with numbers, hex ids and UUIDs masked;
 *  5. the message (its template when the SDK sent one), masked the same way.
 */
export interface Grouping {
  /** Hex sha1 of the components; the identity within its project. */
  hash: string;
  components: string[];
  title: string;
  culprit: string | null;
  type: string;
  value: string;
  metadata: { filename?: string; function?: string };
}

const GROUPING_VERSION = "faultline:v1";

export function groupEvent(event: NormalizedEvent): Grouping {
  const defaults = defaultComponents(event);
  const components = event.fingerprint?.length
    ? event.fingerprint.flatMap((part) => (isDefaultMarker(part) ? defaults : [`custom:${part}`]))
    : defaults;
  // One call, not createHash().update().digest(): 0.9 µs against 2.6 here, same digest.
  const hash = crypto.hash("sha1", `${GROUPING_VERSION}\n${components.join("\n")}`, "hex");
  return { hash, components, ...describe(event) };
}

function isDefaultMarker(part: string): boolean {
  return /^\{\{\s*default\s*\}\}$/.test(part);
}

function defaultComponents(event: NormalizedEvent): string[] {
  const chain = event.exception?.values ?? [];
  const stacks = chain.map((e) => e.stacktrace?.frames ?? []);
  if (chain.length === 0 && event.stacktrace) stacks.push(event.stacktrace.frames);

  const inApp = stacks.map((frames) => frames.filter((f) => f.in_app === true));
  if (inApp.some((frames) => frames.length > 0)) return withTypes(chain, inApp);
  if (stacks.some((frames) => frames.length > 0)) return withTypes(chain, stacks);

  if (chain.length > 0) {
    return chain.map((e) => `exception:${e.type ?? ""}:${maskVariables(e.value ?? "")}`);
  }
  const template = event.logentry?.message ?? event.message ?? "";
  return [`message:${maskVariables(template)}`];
}

function withTypes(chain: ExceptionValue[], stacks: Frame[][]): string[] {
  const out: string[] = [];
  stacks.forEach((frames, i) => {
    // The exception type belongs to the group (a TypeError and a RangeError raised at the
    // same place are different problems); its message does not (it carries ids and values).
    const type = chain[i]?.type;
    if (type) out.push(`type:${type}`);
    for (const f of frames) out.push(`frame:${frameLocation(f)}:${frameFunction(f)}`);
  });
  return out;
}

function frameLocation(f: Frame): string {
  if (f.module) return f.module;
  return normalizeFilename(f.filename ?? f.abs_path ?? "");
}

function frameFunction(f: Frame): string {
  const name = f.function ?? "";
  // Anonymous callbacks carry positions or generated names; they do not identify code.
  return name === "?" || name === "<anonymous>" ? "" : name;
}

/**
 * Strips what changes between builds of the same code: URL origins and query strings,
 * webpack/vite content hashes (`main.3f9a2c1b.js`, `chunk-AB12CD34.js`) and absolute
 * prefixes up to a well-known root.
 */
export function normalizeFilename(filename: string): string {
  let name = filename.replace(/[?#].*$/, "");
  name = name.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  name = name.replace(/^.*\/node_modules\//, "node_modules/");
  name = name.replace(/([./_-])[0-9a-f]{8,}(?=[./_-])/gi, "$1<hash>");
  name = name.replace(/([./_-])[A-Za-z0-9]{8,20}(?=\.(?:m?js|cjs|css)$)/, (m, sep: string) =>
    /\d/.test(m) && /[A-Za-z]/.test(m) ? `${sep}<hash>` : m,
  );
  return name;
}

/** Masks the parts of a message that vary between occurrences of one problem. */
export function maskVariables(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\b0x[0-9a-f]+\b/gi, "<hex>")
    .replace(/\b[0-9a-f]{16,}\b/gi, "<hex>")
    .replace(/\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g, "<date>")
    .replace(/\b\d+(?:\.\d+)?\b/g, "<num>")
    .slice(0, 1024);
}

function describe(event: NormalizedEvent): Omit<Grouping, "hash" | "components"> {
  const chain = event.exception?.values ?? [];
  // The last exception in the list is the one that reached the top (Sentry's order).
  const top = chain[chain.length - 1];
  const frames = top?.stacktrace?.frames ?? event.stacktrace?.frames ?? [];
  const culpritFrame =
    [...frames].reverse().find((f) => f.in_app === true) ?? frames[frames.length - 1];
  const metadata: Grouping["metadata"] = {};
  if (culpritFrame?.filename ?? culpritFrame?.abs_path)
    metadata.filename = culpritFrame.filename ?? culpritFrame.abs_path;
  if (culpritFrame?.function) metadata.function = culpritFrame.function;
  const culprit = culpritFrame ? culpritOf(culpritFrame) : (event.transaction ?? null);

  if (top) {
    const type = top.type ?? "Error";
    const value = top.value ?? "";
    const firstLine = value.split("\n", 1)[0] ?? "";
    return {
      title: firstLine ? `${type}: ${firstLine}`.slice(0, 256) : type,
      culprit,
      type,
      value,
      metadata,
    };
  }
  const message = (event.message ?? "").split("\n", 1)[0]?.trim() || "<unlabeled event>";
  return { title: message.slice(0, 256), culprit, type: "", value: event.message ?? "", metadata };
}

function culpritOf(f: Frame): string {
  const where = f.module ?? normalizeFilename(f.filename ?? f.abs_path ?? "?");
  return f.function ? `${f.function}(${where})` : where;
}
