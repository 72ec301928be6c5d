import { z } from "zod";
import type { Db } from "../../db/connection";

/**
 * Per-user alert email settings (account → Notifications). `all`: every alert email a rule
 * sends (the default, no row); `custom`: issues assigned to me and/or every issue of the
 * chosen projects; `none`: no alert email. Test notifications reach everyone but `none`.
 */
export const NotificationSettingsSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("all") }),
  z.object({ mode: z.literal("none") }),
  z.object({
    mode: z.literal("custom"),
    assigned: z.boolean(),
    projects: z.array(z.number().int().positive()).max(1000),
  }),
]);
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;

export async function getNotificationSettings(
  db: Db,
  userId: string,
): Promise<NotificationSettings> {
  const row = await db.kysely
    .selectFrom("notification_settings")
    .selectAll()
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!row) return { mode: "all" };
  if (Number(row.none) === 1) return { mode: "none" };
  let projects: number[] = [];
  try {
    projects = (JSON.parse(row.projects) as unknown[]).map(Number).filter(Number.isFinite);
  } catch {}
  return { mode: "custom", assigned: Number(row.assigned) === 1, projects };
}

export async function saveNotificationSettings(
  db: Db,
  userId: string,
  settings: NotificationSettings,
): Promise<void> {
  if (settings.mode === "all") {
    await db.kysely.deleteFrom("notification_settings").where("user_id", "=", userId).execute();
    return;
  }
  const values = {
    user_id: userId,
    none: settings.mode === "none" ? 1 : 0,
    assigned: settings.mode === "custom" && settings.assigned ? 1 : 0,
    projects: JSON.stringify(settings.mode === "custom" ? [...new Set(settings.projects)] : []),
    updated_at: Date.now(),
  };
  await db.kysely
    .insertInto("notification_settings")
    .values(values)
    .onConflict((oc) =>
      oc.column("user_id").doUpdateSet({
        none: values.none,
        assigned: values.assigned,
        projects: values.projects,
        updated_at: values.updated_at,
      }),
    )
    .execute();
}
