import type { Transaction } from "kysely";
import type { Database } from "../../db/schema";

/**
 * Outcomes: what happened to every item, counted per project, hour, data category, outcome
 * and reason (Sentry's stats model). Nothing is dropped without being counted here.
 */
export type Outcome = "accepted" | "filtered" | "rate_limited" | "invalid" | "client_discard";

const HOUR = 3_600_000;

export interface OutcomeCount {
  projectId: number;
  hour: number;
  category: string;
  outcome: Outcome;
  reason: string;
  quantity: number;
}

export class OutcomeCounter {
  private counts = new Map<string, OutcomeCount>();

  /** Plain values, to pass between threads. */
  list(): OutcomeCount[] {
    return [...this.counts.values()];
  }

  addAll(counts: OutcomeCount[]): void {
    for (const c of counts)
      this.add(c.projectId, c.hour, c.category, c.outcome, c.reason, c.quantity);
  }

  add(
    projectId: number,
    atMs: number,
    category: string,
    outcome: Outcome,
    reason: string,
    quantity = 1,
  ): void {
    if (quantity <= 0) return;
    const hour = Math.floor(atMs / HOUR) * HOUR;
    const key = `${projectId}\u0000${hour}\u0000${category}\u0000${outcome}\u0000${reason}`;
    const entry = this.counts.get(key);
    if (entry) entry.quantity += quantity;
    else this.counts.set(key, { projectId, hour, category, outcome, reason, quantity });
  }

  /** Moves `quantity` counted as one outcome to another (the store found them duplicates). */
  reclassify(
    projectId: number,
    atMs: number,
    category: string,
    from: { outcome: Outcome; reason: string },
    to: { outcome: Outcome; reason: string },
    quantity: number,
  ): void {
    const hour = Math.floor(atMs / HOUR) * HOUR;
    const key = `${projectId}\u0000${hour}\u0000${category}\u0000${from.outcome}\u0000${from.reason}`;
    const entry = this.counts.get(key);
    const moved = Math.min(quantity, entry?.quantity ?? 0);
    if (!entry || moved <= 0) return;
    entry.quantity -= moved;
    if (entry.quantity === 0) this.counts.delete(key);
    this.add(projectId, atMs, category, to.outcome, to.reason, moved);
  }

  get size(): number {
    return this.counts.size;
  }

  async write(trx: Transaction<Database>): Promise<void> {
    const rows = [...this.counts.values()].map((c) => ({
      project_id: c.projectId,
      hour: c.hour,
      category: c.category,
      outcome: c.outcome,
      reason: c.reason,
      quantity: c.quantity,
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto("outcomes")
        .values(rows.slice(i, i + 500))
        .onConflict((oc) =>
          oc.columns(["project_id", "hour", "category", "outcome", "reason"]).doUpdateSet((eb) => ({
            quantity: eb("outcomes.quantity", "+", eb.ref("excluded.quantity")),
          })),
        )
        .execute();
    }
  }
}
