import { z } from "zod";
import type { OrgGrant } from "../../api/access";
import { jsonBody } from "../../api/handler";
import { apiAuditActor } from "../../audit/actor";
import { recordAudit } from "../../audit/record";
import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import { mailConfigured } from "../../mail/transport";
import { findOrgProject } from "../../projects/queries";
import { parseAction } from "./actions";
import { deliveryLog } from "./log";
import { monitorActions } from "./monitor-alerts";
import { isOnCallAction, publicAction, storeOnCallAction } from "./oncall-actions";
import { checkWebhookUrl } from "./ssrf";
import { sendTestNotification } from "./test-notification";

/**
 * REST for delivery: "Send a test notification" (`POST …/rule-actions/`, Sentry's path for
 * it), a rule's or monitor's delivery log, and a cron monitor's alert settings.
 */
const TestBody = z
  .object({
    ruleId: z.number().int().positive().optional(),
    actions: z.array(z.record(z.string(), z.unknown())).min(1).max(20).optional(),
  })
  .refine((b) => b.ruleId !== undefined || b.actions !== undefined, {
    message: "give ruleId or actions",
    path: ["actions"],
  });

async function projectOf(db: Db, grant: OrgGrant, slug: string) {
  const project = await findOrgProject(db, grant.org.id, slug);
  if (!project) throw new AppError("not_found", "project not found");
  return project;
}

export async function testNotificationResponse(
  db: Db,
  grant: OrgGrant,
  projectSlug: string,
  request: Request,
) {
  const project = await projectOf(db, grant, projectSlug);
  const body = await jsonBody(request, TestBody);
  const { deliveries } = await sendTestNotification(db, {
    organizationId: grant.org.id,
    projectId: project.id,
    ruleId: body.ruleId ?? null,
    actions: body.actions,
  });
  return {
    deliveries: deliveries.map((d) => ({ id: String(d.id), deliveryId: d.deliveryId })),
    mailConfigured: mailConfigured(),
  };
}

export async function deliveryLogResponse(db: Db, grant: OrgGrant, projectSlug: string, url: URL) {
  const project = await projectOf(db, grant, projectSlug);
  const rule = url.searchParams.get("rule");
  if (rule === null || !/^\d{1,15}$/.test(rule))
    throw new AppError("bad_request", "rule: a rule id is required");
  const exists = await db.kysely
    .selectFrom("alert_rules")
    .select("id")
    .where("id", "=", Number(rule))
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!exists) throw new AppError("not_found", "alert rule not found");
  return deliveryLog(db, { organizationId: grant.org.id, ruleId: Number(rule) });
}

async function monitorOf(db: Db, grant: OrgGrant, slug: string) {
  const m = await db.kysely
    .selectFrom("monitors")
    .innerJoin("projects", "projects.id", "monitors.project_id")
    .select([
      "monitors.id",
      "monitors.slug",
      "monitors.alert_actions",
      "monitors.alert_failure_threshold",
      "monitors.alert_state",
    ])
    .where("projects.organization_id", "=", grant.org.id)
    .where("monitors.slug", "=", slug)
    .executeTakeFirst();
  if (!m) throw new AppError("not_found", "monitor not found");
  return m;
}

function monitorAlertsOut(m: {
  alert_actions: string | null;
  alert_failure_threshold: number;
  alert_state: string;
}) {
  return {
    actions: monitorActions(m.alert_actions).map((a) =>
      typeof a.id === "string" ? publicAction(a as { id: string }) : a,
    ),
    failureThreshold: Number(m.alert_failure_threshold),
    state: m.alert_state,
    mailConfigured: mailConfigured(),
  };
}

export async function monitorAlertsResponse(db: Db, grant: OrgGrant, slug: string) {
  return monitorAlertsOut(await monitorOf(db, grant, slug));
}

const MonitorAlertsBody = z.object({
  actions: z.array(z.record(z.string(), z.unknown())).max(20),
  failureThreshold: z.number().int().min(1).max(720).default(1),
});

export async function updateMonitorAlertsResponse(
  db: Db,
  grant: OrgGrant,
  slug: string,
  request: Request,
) {
  const m = await monitorOf(db, grant, slug);
  const body = await jsonBody(request, MonitorAlertsBody);
  const before = monitorActions(m.alert_actions);
  for (const [i, action] of body.actions.entries()) {
    if (isOnCallAction(action)) {
      // Checked and its credentials sealed; a blank credential keeps the one saved before.
      body.actions[i] = await storeOnCallAction(db, action, before[i], `actions.${i}`);
      continue;
    }
    const target = parseAction(action);
    if (typeof target === "string") throw new AppError("bad_request", `actions.${i}: ${target}`);
    if (target.kind !== "email" && target.kind !== "oncall") {
      const problem = await checkWebhookUrl(target.url);
      if (problem) throw new AppError("bad_request", `actions.${i}.url: ${problem}`);
    }
  }
  const actor = await apiAuditActor(db, grant, request);
  await db.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable("monitors")
      .set({
        alert_actions: JSON.stringify(body.actions),
        alert_failure_threshold: body.failureThreshold,
      })
      .where("id", "=", m.id)
      .execute();
    await recordAudit(trx, {
      orgId: grant.org.id,
      actor,
      action: "monitor_alerts.update",
      target: m.slug,
      details: {
        channels: body.actions.map((a) => String(a.id ?? "")),
        failureThreshold: body.failureThreshold,
      },
    });
  });
  return monitorAlertsResponse(db, grant, slug);
}

export async function monitorDeliveryLogResponse(db: Db, grant: OrgGrant, slug: string) {
  const m = await monitorOf(db, grant, slug);
  return deliveryLog(db, { organizationId: grant.org.id, monitorId: Number(m.id) });
}
