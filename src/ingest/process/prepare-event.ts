import { type ClockContext, correctEventTimes } from "./clock/clock-drift";
import { type FilterReason, filterReason } from "./filters/inbound-filters";
import { isObject } from "./lenient";
import type { ProjectProcessing } from "./project-settings";
import { mayNeedRepair, type RepairKind, repairJson } from "./repair";
import { hasChanges, newEdit } from "./scrub/edit";
import { type MetaTree, remarkError } from "./scrub/meta";
import { scrubEvent, serializeEdited } from "./scrub/scrub-event";

/**
 * An event's payload from the SDK's bytes to what is stored: parsed, its clock corrected,
 * the project's inbound filters applied, secrets scrubbed (scrub/), and the bytes rewritten
 * only where something changed. `raw` is what the rest of the process stage normalizes, so
 * grouping, tags and the summary columns see the scrubbed event the reader will see.
 */
export type PreparedEvent =
  /** `json`: the bytes to store, in pieces (see serializeEdited). */
  | { kind: "event"; raw: Record<string, unknown>; json: Buffer | Buffer[] }
  /** `raw` is not an object when the payload was not one (addTransaction counts it invalid). */
  | { kind: "transaction"; raw: unknown }
  | { kind: "filtered"; reason: FilterReason; transaction: boolean }
  | { kind: "invalid"; raw: unknown };

/** How a repair reads on the event page (`_meta` errors, events/meta.ts). */
const REPAIRED: Record<RepairKind, string> = {
  control_characters: "control characters removed (no database stores them)",
  lone_surrogate: "invalid UTF-16 (a lone surrogate) replaced with U+FFFD",
  number_out_of_range: `number out of range, clamped to ±${Number.MAX_SAFE_INTEGER}`,
};

export function prepareEvent(
  json: Buffer,
  clock: ClockContext,
  project: ProjectProcessing,
  /** A `transaction` item, whatever its payload's `type` says. */
  transactionItem = false,
  /** The `_meta` is ingest's own, written by the symbolicate stage (symbolicate/). */
  ownMeta = false,
): PreparedEvent {
  const text = json.toString("utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return transactionItem
      ? { kind: "transaction", raw: undefined }
      : { kind: "invalid", raw: undefined };
  }
  const transaction = transactionItem || (isObject(raw) && raw.type === "transaction");
  if (!isObject(raw)) return transaction ? { kind: "transaction", raw } : { kind: "invalid", raw };
  const edit = newEdit();
  // `_meta` says what Faultline changed (the event page shows it): never the sender's word.
  if (Object.hasOwn(raw, "_meta")) {
    if (ownMeta && isObject(raw._meta)) edit.meta = raw._meta as MetaTree;
    delete raw._meta;
    edit.rewrite = true;
  }
  if (mayNeedRepair(text))
    repairJson(raw, (path, kind) => {
      remarkError(edit.meta, path, "invalid_data", { value: REPAIRED[kind] });
      edit.rewrite = true;
    });
  // Transactions are stored as span rows, corrected there (adjust-rows.ts).
  if (!transaction) correctEventTimes(raw, clock, edit);
  if (project.filters) {
    const reason = filterReason(raw, project.filters, transaction);
    if (reason) return { kind: "filtered", reason, transaction };
  }
  // A transaction is stored as spans, not as its bytes (their data is scrubbed as rows).
  if (transaction) return { kind: "transaction", raw };
  if (project.scrubber) scrubEvent(raw, text, project.scrubber, edit);
  return {
    kind: "event",
    raw,
    json: hasChanges(edit) ? serializeEdited(json, text, raw, edit) : json,
  };
}
