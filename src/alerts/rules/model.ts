import type { Selectable } from "kysely";
import type { AlertRuleTable } from "../../db/schema";
import {
  type Action,
  ActionSchema,
  type Condition,
  ConditionSchema,
  type Filter,
  FilterSchema,
} from "./schemas";

/** A stored rule, its JSON columns parsed (anything that no longer parses is left out). */
export interface AlertRule {
  id: number;
  organizationId: number;
  projectId: number;
  name: string;
  environment: string | null;
  actionMatch: "all" | "any";
  filterMatch: "all" | "any" | "none";
  /** Action interval, minutes. */
  frequency: number;
  conditions: Condition[];
  filters: Filter[];
  actions: Action[];
  secret: string;
  status: string;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

export function ruleFromRow(row: Selectable<AlertRuleTable>): AlertRule {
  return {
    id: Number(row.id),
    organizationId: Number(row.organization_id),
    projectId: Number(row.project_id),
    name: row.name,
    environment: row.environment,
    actionMatch: row.action_match === "any" ? "any" : "all",
    filterMatch: row.filter_match === "any" ? "any" : row.filter_match === "none" ? "none" : "all",
    frequency: Number(row.frequency),
    conditions: parseList(row.conditions, (v) => ConditionSchema.safeParse(v)),
    filters: parseList(row.filters, (v) => FilterSchema.safeParse(v)),
    actions: parseList(row.actions, (v) => ActionSchema.safeParse(v)),
    secret: row.secret,
    status: row.status,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function parseList<T>(
  json: string,
  parse: (v: unknown) => { success: true; data: T } | { success: false },
): T[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const out: T[] = [];
  for (const item of raw) {
    const parsed = parse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}
