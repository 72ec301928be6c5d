import crypto from "node:crypto";
import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import { parseAction } from "./actions";
import { isOnCallAction, publicAction, storeOnCallAction } from "./oncall-actions";
import { checkWebhookUrl } from "./ssrf";

/**
 * "Send a test notification": one outbox row (reason `test`) per action, delivered by the
 * sender like any alert (so the delivery log shows how it went). The actions are the rule's as
 * saved, or those given (the editor's unsaved form); the newest issue of the project, when
 * there is one, gives the message something real to show.
 */
export interface TestNotificationInput {
  organizationId: number;
  projectId: number;
  ruleId?: number | null;
  /** Unsaved actions from the editor; else the rule's. */
  actions?: unknown[];
}

export async function sendTestNotification(
  db: Db,
  input: TestNotificationInput,
): Promise<{ deliveries: { id: number; deliveryId: string; action: string }[] }> {
  let actions: unknown[] | undefined = input.actions;
  /** The rule's own actions, whose sealed credentials a test without them uses. */
  let savedActions: Record<string, unknown>[] = [];
  let ruleId: number | null = input.ruleId ?? null;
  if (ruleId !== null) {
    const rule = await db.kysely
      .selectFrom("alert_rules")
      .select(["id", "actions"])
      .where("id", "=", ruleId)
      .where("organization_id", "=", input.organizationId)
      .where("project_id", "=", input.projectId)
      .executeTakeFirst();
    if (!rule) throw new AppError("not_found", "alert rule not found");
    try {
      const saved = JSON.parse(rule.actions) as unknown;
      savedActions = Array.isArray(saved) ? (saved as Record<string, unknown>[]) : [];
    } catch {}
    if (!actions) actions = savedActions;
  } else ruleId = null;
  if (!Array.isArray(actions) || actions.length === 0)
    throw new AppError("bad_request", "actions: at least one action is needed");
  if (actions.length > 20) throw new AppError("bad_request", "actions: at most 20 actions");
  for (const [i, action] of actions.entries()) {
    if (!action || typeof action !== "object")
      throw new AppError("bad_request", `actions.${i}: must be an object`);
    if (isOnCallAction(action)) {
      // Sealed before it is written to the outbox; a blank credential uses the rule's.
      actions[i] = await storeOnCallAction(db, action, savedActions[i], `actions.${i}`);
      continue;
    }
    const target = parseAction(action as Record<string, unknown>);
    if (typeof target === "string") throw new AppError("bad_request", `actions.${i}: ${target}`);
    if (target.kind !== "email" && target.kind !== "oncall") {
      const problem = await checkWebhookUrl(target.url);
      if (problem) throw new AppError("bad_request", `actions.${i}.url: ${problem}`);
    }
  }
  const latest = await db.kysely
    .selectFrom("issues")
    .select("id")
    .where("project_id", "=", input.projectId)
    .orderBy("last_seen", "desc")
    .limit(1)
    .executeTakeFirst();
  const now = Date.now();
  const batch = crypto.randomUUID();
  const rows = actions.map((action, i) => ({
    organization_id: input.organizationId,
    project_id: input.projectId,
    rule_id: ruleId,
    issue_id: latest ? Number(latest.id) : null,
    monitor_id: null,
    event_id: null,
    reason: "test",
    action: JSON.stringify(action),
    dedupe_key: `test:${batch}:${i}`,
    delivery_id: crypto.randomUUID(),
    next_attempt_at: now,
    claimed_until: null,
    last_error: null,
    created_at: now,
    delivered_at: null,
  }));
  const inserted = await db.kysely
    .insertInto("alert_outbox")
    .values(rows)
    .returning(["id", "delivery_id", "action"])
    .execute();
  return {
    deliveries: inserted.map((r) => ({
      id: Number(r.id),
      deliveryId: r.delivery_id,
      action: shownAction(r.action),
    })),
  };
}

/** The action as the answer shows it: an on-call action's credentials left out. */
function shownAction(raw: string): string {
  try {
    const a = JSON.parse(raw) as { id?: unknown };
    return typeof a.id === "string" ? JSON.stringify(publicAction(a as { id: string })) : raw;
  } catch {
    return raw;
  }
}
