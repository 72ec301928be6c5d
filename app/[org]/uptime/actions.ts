"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { userActor } from "@/src/audit/actor";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { AppError } from "@/src/errors";
import { findProjectBySlugs } from "@/src/projects/queries";
import { UptimeInputSchema } from "@/src/uptime/model";
import { createUptimeMonitor, deleteUptimeMonitor } from "@/src/uptime/mutations";
import { findOrgUptimeMonitor } from "@/src/uptime/queries";
import { saveStatusPage } from "@/src/uptime/status-page";

/** Create and delete uptime monitors from the uptime page: admins and owners (alerts.write). */
const CreateForm = z.object({
  project: z.string().min(1).max(200),
  name: z.string().max(200),
  kind: z.enum(["http", "heartbeat"]).default("http"),
  url: z.string().max(4096).default(""),
  method: z.string().max(10).default("GET"),
  intervalSeconds: z.coerce.number().int().default(60),
  timeoutMs: z.coerce.number().int().default(10_000),
  bodyContains: z.string().max(2000).default(""),
  status: z.enum(["active", "disabled"]).default("active"),
});

export async function createUptimeMonitorAction(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "createUptimeMonitorAction", need: "alerts.write", schema: CreateForm },
    async (ctx, form) => {
      const db = getDb();
      const project = await findProjectBySlugs(db, ctx.org.slug, form.project);
      if (!project || Number(project.organizationId) !== ctx.org.id)
        throw new AppError("not_found", "project not found");
      const parsed = UptimeInputSchema.safeParse({
        name: form.name,
        kind: form.kind,
        url: form.url,
        method: form.method,
        intervalSeconds: form.intervalSeconds,
        timeoutMs: form.timeoutMs,
        bodyContains: form.bodyContains || null,
        status: form.status,
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return { ok: false, message: `${issue?.path.join(".")}: ${issue?.message}` };
      }
      await createUptimeMonitor(
        db,
        { orgId: ctx.org.id, projectId: Number(project.id), projectSlug: project.slug },
        parsed.data,
        userActor(ctx.user, await headers()),
      );
      revalidatePath(`/${ctx.org.slug}/uptime`);
      return { ok: true, message: "Monitor created" };
    },
  );
}

const DeleteForm = z.object({ id: z.coerce.number().int().positive() });

export async function deleteUptimeMonitorAction(formData: FormData): Promise<void> {
  let target: string | undefined;
  await runOrgAction(
    formData,
    { name: "deleteUptimeMonitorAction", need: "alerts.write", schema: DeleteForm },
    async (ctx, input) => {
      const db = getDb();
      const m = await findOrgUptimeMonitor(db, ctx.org.id, input.id);
      if (!m) throw new AppError("not_found", "uptime monitor not found");
      await deleteUptimeMonitor(
        db,
        { orgId: ctx.org.id, projectId: Number(m.project_id), projectSlug: m.projectSlug },
        input.id,
        userActor(ctx.user, await headers()),
      );
      target = `/${ctx.org.slug}/uptime`;
      return { ok: true, message: "Deleted" };
    },
  );
  if (target) redirect(target);
}

/** The organization's public status page: its address, title, whether it is on, its monitors. */
const StatusPageForm = z.object({
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, "The address takes a–z, 0–9 and dashes"),
  title: z.string().trim().min(1, "Enter a title").max(200),
  enabled: z.string().optional(),
  monitors: z.array(z.coerce.number().int().positive()).max(200).default([]),
  showUrl: z.array(z.coerce.number().int().positive()).max(200).default([]),
});

export async function saveStatusPageAction(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return runOrgAction(
    formData,
    {
      name: "saveStatusPageAction",
      need: "alerts.write",
      schema: StatusPageForm,
      lists: ["monitors", "showUrl"],
    },
    async (ctx, input) => {
      await saveStatusPage(
        getDb(),
        ctx.org.id,
        {
          slug: input.slug,
          title: input.title,
          enabled: input.enabled === "on",
          monitors: input.monitors,
          showUrl: input.showUrl,
        },
        userActor(ctx.user, await headers()),
      );
      revalidatePath(`/${ctx.org.slug}/uptime/status-page`);
      return { ok: true, message: "Status page saved" };
    },
  );
}
