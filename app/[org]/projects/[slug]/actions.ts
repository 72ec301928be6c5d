"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import type { z } from "zod";
import { userActor } from "@/src/audit/actor";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import type { Action } from "@/src/auth/permissions";
import type { OrgContext } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import {
  dataSettingsFormSchema,
  toDataSettings,
  updateDataSettings,
} from "@/src/projects/data-settings";
import * as projects from "@/src/projects/mutations";
import type { ProjectDetail } from "@/src/projects/queries";
import {
  createKeySchema,
  keyRefSchema,
  setKeyEnabledSchema,
  setRateLimitSchema,
  updateProjectSchema,
} from "@/src/projects/schemas";
import { deleteProjectBundle } from "@/src/sourcemaps/mutations";
import { bundleRefSchema } from "@/src/sourcemaps/schemas";

/**
 * The settings page's actions. Each resolves the project inside the organization the session
 * may act in, so another organization's project or key is a 404 like an unknown one.
 */
async function actorOf(ctx: OrgContext) {
  return userActor(ctx.user, await headers());
}

async function audited(ctx: OrgContext): Promise<projects.Audited> {
  return { orgId: ctx.org.id, actor: await actorOf(ctx) };
}

function projectAction<S extends z.ZodType<{ project: string }>>(
  formData: FormData,
  spec: { name: string; need: Action; schema: S },
  run: (ctx: OrgContext, project: ProjectDetail, input: z.infer<S>) => Promise<string>,
): Promise<ActionState> {
  return runOrgAction(formData, spec, async (ctx, input) => {
    const db = getDb();
    const project = await projects.requireOrgProject(db, ctx.org.id, input.project);
    const message = await run(ctx, project, input);
    revalidatePath(`/${ctx.org.slug}/projects/${project.slug}`);
    return { ok: true, message };
  });
}

export async function updateProject(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return projectAction(
    formData,
    { name: "updateProject", need: "projects.write", schema: updateProjectSchema },
    async (ctx, _p, input) => {
      await projects.updateProject(getDb(), ctx.org.id, input, await actorOf(ctx));
      revalidatePath(`/${ctx.org.slug}/projects`);
      return "Project saved.";
    },
  );
}

export async function createKey(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return projectAction(
    formData,
    { name: "createKey", need: "keys.write", schema: createKeySchema },
    async (ctx, project, input) => {
      await projects.createKey(getDb(), project.id, input.label, await audited(ctx));
      return `Key "${input.label}" created.`;
    },
  );
}

export async function setKeyEnabled(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return projectAction(
    formData,
    { name: "setKeyEnabled", need: "keys.write", schema: setKeyEnabledSchema },
    async (ctx, project, input) => {
      await projects.setKeyEnabled(
        getDb(),
        project.id,
        input.key,
        input.enabled,
        await audited(ctx),
      );
      return input.enabled ? "Key enabled." : "Key disabled: events sent with it are refused.";
    },
  );
}

export async function deleteKey(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return projectAction(
    formData,
    { name: "deleteKey", need: "keys.write", schema: keyRefSchema },
    async (ctx, project, input) => {
      await projects.deleteKey(getDb(), project.id, input.key, await audited(ctx));
      return "Key deleted.";
    },
  );
}

export async function setKeyRateLimit(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return projectAction(
    formData,
    { name: "setKeyRateLimit", need: "keys.write", schema: setRateLimitSchema },
    async (ctx, project, input) => {
      await projects.setKeyRateLimit(
        getDb(),
        project.id,
        input.key,
        input.rateLimit,
        await audited(ctx),
      );
      return input.rateLimit
        ? `Rate limit set: ${input.rateLimit.count} events per ${input.rateLimit.window} s.`
        : "Rate limit removed.";
    },
  );
}

export async function saveDataSettings(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return projectAction(
    formData,
    { name: "saveDataSettings", need: "projects.write", schema: dataSettingsFormSchema },
    async (ctx, project, input) => {
      const { changed } = await updateDataSettings(
        getDb(),
        { id: project.id, organizationId: ctx.org.id, slug: project.slug },
        toDataSettings(input),
        await actorOf(ctx),
      );
      return changed.length === 0
        ? "Nothing changed."
        : `Saved (${changed.join(", ")}). Ingest applies it within seconds.`;
    },
  );
}

export async function deleteBundle(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return projectAction(
    formData,
    { name: "deleteBundle", need: "projects.write", schema: bundleRefSchema },
    async (ctx, project, input) => {
      await deleteProjectBundle(getDb(), project.id, input.bundle, {
        ...(await audited(ctx)),
        projectSlug: project.slug,
      });
      return "Bundle deleted.";
    },
  );
}
