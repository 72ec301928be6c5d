"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { createRule, deleteRule as remove, updateRule } from "@/src/alerts/rules/mutations";
import { RuleInputSchema } from "@/src/alerts/rules/schemas";
import { orgProjectScope, type RuleFormState } from "@/src/alerts/rules/ui";
import { userActor } from "@/src/audit/actor";
import { orgActionInput } from "@/src/auth/org-action";
import { rethrowAccessErrors } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";

/** The editor sends the rule as JSON beside the project and, when changing one, its id. */
const RuleForm = z.object({
  rule: z.string().default(""),
  project: z.string().max(200).default(""),
  ruleId: z.string().max(20).default(""),
});

/** Creates or changes a rule from the editor; zod's errors go back beside their fields. */
export async function saveRule(_prev: RuleFormState, formData: FormData): Promise<RuleFormState> {
  const got = await orgActionInput(formData, {
    name: "saveRule",
    need: "alerts.write",
    schema: RuleForm,
  });
  if (!got.ok) return { ...got.state, fieldErrors: {} };
  const { ctx, input } = got;
  let raw: unknown;
  try {
    raw = JSON.parse(input.rule);
  } catch {
    return { ok: false, message: "The form did not send a rule", fieldErrors: {} };
  }
  const parsed = RuleInputSchema.safeParse(raw);
  if (!parsed.success) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      const key = issue.path.join(".") || "rule";
      fieldErrors[key] ??= issue.message;
    }
    return { ok: false, message: "Please correct the marked fields", fieldErrors };
  }
  let target: string;
  try {
    const db = getDb();
    const scope = await orgProjectScope(db, ctx.org, input.project);
    const actor = userActor(ctx.user, await headers());
    const ruleId = input.ruleId;
    const rule = /^\d{1,15}$/.test(ruleId)
      ? await updateRule(db, scope, Number(ruleId), parsed.data, actor)
      : await createRule(db, scope, parsed.data, actor);
    target = `/${ctx.org.slug}/alerts/${scope.projectSlug}/${rule.id}`;
  } catch (err) {
    rethrowAccessErrors(err);
    return { ok: false, message: (err as Error).message, fieldErrors: {} };
  }
  redirect(target);
}

export async function deleteRule(formData: FormData): Promise<void> {
  const got = await orgActionInput(formData, {
    name: "deleteRule",
    need: "alerts.write",
    schema: RuleForm,
  });
  if (!got.ok) return;
  const { ctx, input } = got;
  try {
    const db = getDb();
    const scope = await orgProjectScope(db, ctx.org, input.project);
    await remove(db, scope, Number(input.ruleId), userActor(ctx.user, await headers()));
  } catch (err) {
    rethrowAccessErrors(err);
    throw err;
  }
  redirect(`/${ctx.org.slug}/alerts`);
}
