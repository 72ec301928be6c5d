import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { type AlertRule, ruleFromRow } from "./model";

/**
 * Each project's active rules for the worker, from memory: a batch of a cached project costs
 * no query. Entries expire after TTL_MS (another process's change arrives within that); a
 * change in this thread clears the entry at once, and one in another thread of this process
 * (the web thread, in role all) over a BroadcastChannel.
 */
const TTL_MS = 5_000;
const CHANNEL = "faultline:alert-rules";

type Entries = Map<number, { rules: AlertRule[]; expires: number }>;
/** Per database (keyed by the connection's adapter, which its transactions share). */
const byDb = new WeakMap<object, Entries>();
const all = new Set<Entries>();
let channel: BroadcastChannel | undefined;
let sender: BroadcastChannel | undefined;

function listen(): void {
  if (channel) return;
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (message) => {
    const id = (message as MessageEvent).data;
    if (typeof id === "number") for (const entries of all) entries.delete(id);
  };
  (channel as unknown as { unref?: () => void }).unref?.();
}

/** Called after a rule of the project was created, changed or deleted. */
export function rulesChanged(projectId: number): void {
  for (const entries of all) entries.delete(projectId);
  if (!sender) {
    sender = new BroadcastChannel(CHANNEL);
    (sender as unknown as { unref?: () => void }).unref?.();
  }
  sender.postMessage(projectId);
}

/** The active rules of each project (an empty list when it has none). */
export async function rulesForProjects(
  db: Kysely<Database>,
  projectIds: readonly number[],
  now = Date.now(),
): Promise<Map<number, AlertRule[]>> {
  listen();
  const adapter = db.getExecutor().adapter;
  let entries = byDb.get(adapter);
  if (!entries) {
    entries = new Map();
    byDb.set(adapter, entries);
    all.add(entries);
  }
  const out = new Map<number, AlertRule[]>();
  const missing: number[] = [];
  for (const id of projectIds) {
    const hit = entries.get(id);
    if (hit && hit.expires > now) out.set(id, hit.rules);
    else missing.push(id);
  }
  if (missing.length === 0) return out;
  const rows = await db
    .selectFrom("alert_rules")
    .selectAll()
    .where("project_id", "in", missing)
    .where("status", "=", "active")
    .orderBy("id")
    .execute();
  for (const id of missing) out.set(id, []);
  for (const row of rows) out.get(Number(row.project_id))?.push(ruleFromRow(row));
  for (const id of missing) entries.set(id, { rules: out.get(id) ?? [], expires: now + TTL_MS });
  return out;
}
