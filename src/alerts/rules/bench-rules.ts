import { randomBytes } from "node:crypto";
import type { Db } from "../../db/connection";
import { ACTION, CONDITION, FILTER, type IntervalName } from "./ids";
import type { RuleInput } from "./schemas";

/**
 * `BENCH_RULES=N` of bench:ingest: replaces every project's rules with N rules, half of them
 * frequency and unique-user rules (the ones that read counters), half new-issue, regression
 * and reappeared rules with filters, each with an email and a webhook action.
 */
export async function benchRules(db: Db, count: number): Promise<void> {
  const projects = await db.kysely
    .selectFrom("projects")
    .select(["id", "organization_id"])
    .execute();
  await db.kysely.deleteFrom("alert_rules").execute();
  const intervals: IntervalName[] = ["1m", "5m", "15m", "1h", "1d", "1w"];
  const actions: RuleInput["actions"] = [
    { id: ACTION.email, targetType: "AllMembers" },
    { id: ACTION.webhook, url: "https://hooks.example.com/faultline" },
  ];
  const now = Date.now();
  for (const p of projects) {
    for (let i = 0; i < count; i++) {
      const frequencyRule = i % 2 === 0;
      const interval = intervals[i % intervals.length] as IntervalName;
      const conditions: RuleInput["conditions"] = frequencyRule
        ? [
            i % 4 === 0
              ? { id: CONDITION.frequency, value: 50 + i, interval }
              : { id: CONDITION.uniqueUsers, value: 20 + i, interval },
          ]
        : [[CONDITION.firstSeen, CONDITION.regression, CONDITION.reappeared][i % 3] as never].map(
            (id) => ({ id }),
          );
      const filters: RuleInput["filters"] =
        i % 3 === 0 ? [{ id: FILTER.level, match: "gte", level: "40" }] : [];
      await db.kysely
        .insertInto("alert_rules")
        .values({
          organization_id: p.organization_id,
          project_id: p.id,
          name: `bench rule ${i + 1}`,
          environment: null,
          action_match: "all",
          filter_match: "all",
          frequency: 30,
          conditions: JSON.stringify(conditions),
          filters: JSON.stringify(filters),
          actions: JSON.stringify(actions),
          secret: randomBytes(32).toString("hex"),
          created_by: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
  }
}
