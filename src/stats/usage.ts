import type { Db } from "../db/connection";
import type { Window } from "../releases/page-params";
import { orgOutcomes } from "./queries";

/**
 * The usage page (issue 22): what the organization sent and what became of it, from the
 * hourly outcomes (the same rows as `GET /api/0/organizations/<org>/stats_v2/`). Enough to
 * set a rate limit: per category and outcome over time, per project and per reason.
 */
export const CATEGORIES = [
  { key: "error", label: "Errors" },
  { key: "transaction", label: "Transactions" },
  { key: "span", label: "Spans" },
  { key: "log_item", label: "Logs" },
  { key: "session", label: "Sessions" },
  { key: "attachment", label: "Attachments (bytes)" },
  { key: "monitor", label: "Check-ins" },
  { key: "feedback", label: "Feedback" },
] as const;
export type Category = (typeof CATEGORIES)[number]["key"];
export const CATEGORY_KEYS = CATEGORIES.map((c) => c.key) as [Category, ...Category[]];

export const OUTCOMES = [
  { key: "accepted", label: "Accepted" },
  { key: "filtered", label: "Filtered" },
  { key: "rate_limited", label: "Rate limited" },
  { key: "invalid", label: "Invalid" },
  { key: "client_discard", label: "Client discard" },
] as const;
export type OutcomeKey = (typeof OUTCOMES)[number]["key"];

type ByOutcome = Record<OutcomeKey, number>;
const zero = (): ByOutcome => ({
  accepted: 0,
  filtered: 0,
  rate_limited: 0,
  invalid: 0,
  client_discard: 0,
});

export interface Usage {
  /** Every category's totals in the period, per outcome. */
  totals: Record<Category, ByOutcome>;
  /** The chosen category: per outcome, one value per bucket of the window. */
  series: Record<OutcomeKey, number[]>;
  byProject: { projectId: number; slug: string; outcomes: ByOutcome; total: number }[];
  byReason: { outcome: OutcomeKey; reason: string; quantity: number }[];
}

export async function orgUsage(
  db: Db,
  opts: { orgId: number; projectIds: number[]; category: Category; window: Window },
): Promise<Usage> {
  const { window } = opts;
  const projectIds = opts.projectIds.length ? opts.projectIds : [-1];
  // Totals summed by the database; only the chosen category's rows come back one by one.
  const [totalRows, rows, projects] = await Promise.all([
    db.kysely
      .selectFrom("outcomes")
      .innerJoin("projects", "projects.id", "outcomes.project_id")
      .select((eb) => [
        "outcomes.category as category",
        "outcomes.outcome as outcome",
        eb.fn.sum<number>("outcomes.quantity").as("quantity"),
      ])
      .where("projects.organization_id", "=", opts.orgId)
      .where("outcomes.project_id", "in", projectIds)
      .where("outcomes.hour", ">=", window.start)
      .where("outcomes.hour", "<", window.end)
      .groupBy(["outcomes.category", "outcomes.outcome"])
      .execute(),
    orgOutcomes(db, {
      orgId: opts.orgId,
      start: window.start,
      end: window.end,
      projectIds,
      categories: [opts.category],
    }),
    db.kysely
      .selectFrom("projects")
      .select(["id", "slug"])
      .where("organization_id", "=", opts.orgId)
      .execute(),
  ]);
  const slugOf = new Map(projects.map((p) => [Number(p.id), p.slug]));
  const totals = Object.fromEntries(CATEGORY_KEYS.map((c) => [c, zero()])) as Record<
    Category,
    ByOutcome
  >;
  const series = Object.fromEntries(
    OUTCOMES.map((o) => [o.key, window.buckets.map(() => 0)]),
  ) as Record<OutcomeKey, number[]>;
  const byProject = new Map<number, ByOutcome>();
  const byReason = new Map<string, { outcome: OutcomeKey; reason: string; quantity: number }>();
  for (const t of totalRows) {
    const cat = totals[t.category as Category];
    if (cat && t.outcome in cat) cat[t.outcome as OutcomeKey] += Number(t.quantity);
  }
  for (const r of rows) {
    const outcome = r.outcome as OutcomeKey;
    const quantity = Number(r.quantity);
    if (!(outcome in totals.error) || r.category !== opts.category) continue;
    const i = Math.floor((Number(r.hour) - window.start) / window.bucket);
    const s = series[outcome];
    if (s[i] !== undefined) s[i] += quantity;
    const projectId = Number(r.projectId);
    const p = byProject.get(projectId) ?? zero();
    p[outcome] += quantity;
    byProject.set(projectId, p);
    if (outcome !== "accepted") {
      const reason = r.reason || "none";
      const key = `${outcome}\u0000${reason}`;
      const e = byReason.get(key) ?? { outcome, reason, quantity: 0 };
      e.quantity += quantity;
      byReason.set(key, e);
    }
  }
  return {
    totals,
    series,
    byProject: [...byProject.entries()]
      .map(([projectId, outcomes]) => ({
        projectId,
        slug: slugOf.get(projectId) ?? String(projectId),
        outcomes,
        total: Object.values(outcomes).reduce((a, b) => a + b, 0),
      }))
      .sort((a, b) => b.total - a.total || a.slug.localeCompare(b.slug)),
    byReason: [...byReason.values()].sort((a, b) => b.quantity - a.quantity),
  };
}
