"use server";

import { redirect } from "next/navigation";
import { sendTestNotification } from "@/src/alerts/delivery/test-notification";
import { rethrowAccessErrors, withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { findOrgProject } from "@/src/projects/queries";

const field = (formData: FormData, name: string) => {
  const v = formData.get(name);
  return typeof v === "string" ? v : "";
};

/**
 * "Send a test notification" for a saved rule: one `test` outbox row per action, delivered by
 * the sender; the rule page's delivery log shows how each went.
 */
export async function sendTestNotificationAction(formData: FormData): Promise<void> {
  const ctx = await withOrg(field(formData, "org"), { need: "alerts.write" });
  const projectSlug = field(formData, "project");
  const ruleId = field(formData, "ruleId");
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
