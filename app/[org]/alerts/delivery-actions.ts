"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { sendTestNotification } from "@/src/alerts/delivery/test-notification";
import { orgActionInput } from "@/src/auth/org-action";
import { rethrowAccessErrors } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { findOrgProject } from "@/src/projects/queries";

const TestForm = z.object({
  project: z.string().max(200).default(""),
  ruleId: z.string().max(20).default(""),
});

/**
 * "Send a test notification" for a saved rule: one `test` outbox row per action, delivered by
 * the sender; the rule page's delivery log shows how each went.
 */
export async function sendTestNotificationAction(formData: FormData): Promise<void> {
  const got = await orgActionInput(formData, {
    name: "sendTestNotificationAction",
    need: "alerts.write",
    schema: TestForm,
  });
  if (!got.ok) return;
  const { ctx } = got;
  const { project: projectSlug, ruleId } = got.input;
  let outcome = "sent";
  try {
    const db = getDb();
    const project = await findOrgProject(db, ctx.org.id, projectSlug);
    if (!project || !/^\d{1,15}$/.test(ruleId)) outcome = "not_found";
    else
      await sendTestNotification(db, {
        organizationId: ctx.org.id,
        projectId: project.id,
        ruleId: Number(ruleId),
      });
  } catch (err) {
    rethrowAccessErrors(err);
    outcome = "failed";
  }
  redirect(
    `/${ctx.org.slug}/alerts/${encodeURIComponent(projectSlug)}/${encodeURIComponent(ruleId)}?test=${outcome}`,
  );
}
