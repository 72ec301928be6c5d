"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { userActor } from "@/src/audit/actor";
import { runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { deleteMonitor, setMonitorMuted } from "@/src/monitors/mutations";

/** Mute, unmute and delete a cron monitor: admins and owners (projects.write). */
const MonitorForm = z.object({ monitor: z.string().min(1).max(200) });

export async function muteMonitor(formData: FormData): Promise<void> {
  await setMuted(formData, true);
}

export async function unmuteMonitor(formData: FormData): Promise<void> {
  await setMuted(formData, false);
}

async function setMuted(formData: FormData, muted: boolean): Promise<void> {
  await runOrgAction(
    formData,
    { name: muted ? "muteMonitor" : "unmuteMonitor", need: "projects.write", schema: MonitorForm },
    async (ctx, input) => {
      await setMonitorMuted(
        getDb(),
        ctx.org.id,
        input.monitor,
        muted,
        userActor(ctx.user, await headers()),
      );
      revalidatePath(`/${ctx.org.slug}/crons`);
      return { ok: true, message: muted ? "Muted" : "Unmuted" };
    },
  );
}

export async function deleteMonitorAction(formData: FormData): Promise<void> {
  let target: string | undefined;
  await runOrgAction(
    formData,
    { name: "deleteMonitorAction", need: "projects.write", schema: MonitorForm },
    async (ctx, input) => {
      await deleteMonitor(getDb(), ctx.org.id, input.monitor, userActor(ctx.user, await headers()));
      target = `/${ctx.org.slug}/crons`;
      return { ok: true, message: "Deleted" };
    },
  );
  if (target) redirect(target);
}
