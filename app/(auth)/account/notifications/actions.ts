"use server";

import { redirect } from "next/navigation";
import {
  NotificationSettingsSchema,
  saveNotificationSettings,
} from "@/src/alerts/delivery/settings";
import { readForm } from "@/src/auth/form-input";
import { accountsDb } from "@/src/auth/tables";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";

/** Saves the signed-in user's alert email settings (only projects of their organizations). */
export async function saveNotifications(formData: FormData): Promise<void> {
  const user = await requireUser();
  const form = readForm(formData, ["project"]);
  if (!form.ok) redirect("/account/notifications?error=mode");
  const { mode, assigned, project } = form.fields;
  const chosen = (project as FormDataEntryValue[])
    .map((v) => Number(v))
    .filter((n) => Number.isInteger(n) && n > 0);
  const parsed = NotificationSettingsSchema.safeParse(
    mode === "custom" ? { mode, assigned: assigned === "on", projects: chosen } : { mode },
  );
  if (!parsed.success) redirect("/account/notifications?error=mode");
  const settings = parsed.data;
  if (settings.mode === "custom" && settings.projects.length > 0) {
    const own = await accountsDb(getDb())
      .selectFrom("projects")
      .innerJoin("members", "members.organization_id", "projects.organization_id")
      .select("projects.id")
      .where("members.user_id", "=", user.id)
      .where("projects.id", "in", settings.projects)
      .execute();
    settings.projects = own.map((r) => Number(r.id));
  }
  await saveNotificationSettings(getDb(), user.id, settings);
  redirect("/account/notifications?done=1");
}
