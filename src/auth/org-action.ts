import { headers } from "next/headers";
import { forbidden } from "next/navigation";
import type { z } from "zod";
import { userActor } from "../audit/actor";
import { recordAudit } from "../audit/record";
import { getDb } from "../db/connection";
import { auditedFields, type FormFields, readForm, repeatedFieldMessage } from "./form-input";
import { type Action, can } from "./permissions";
import { type OrgContext, rethrowAccessErrors, withOrg } from "./with-org";

/** What a form's server action hands back to the form (see useActionState). */
export type ActionState = {
  ok: boolean;
  message: string;
  /** A secret shown once, e.g. a new member's temporary password. */
  secret?: string;
} | null;

/**
 * What an organization action takes and needs. `need` is an action of the permissions table,
 * or a function of the parsed input when what the form asks for decides it (the bulk form's
 * delete needs more than its resolve): either way the permission comes from the very value
 * the action then acts on, never from a second read of the raw form.
 */
export interface OrgActionSpec<S extends z.ZodType> {
  /** Names the action in the audit log when a form is refused (`bulkIssues`). */
  name: string;
  need: Action | ((input: z.output<S>) => Action);
  schema: S;
  /** Fields that are lists (ticked rows); each arrives as an array. Any other field repeated
   * is refused. */
  lists?: readonly string[];
}

export type OrgActionInput<S extends z.ZodType> =
  | { ok: true; ctx: OrgContext; input: z.output<S> }
  | { ok: false; state: NonNullable<ActionState> };

/**
 * The gate of every organization server action. The form names its organization in the field
 * `org`; that is only a claim — membership is checked on every call, from the session. Then
 * the form is read once (a repeated single field is refused), parsed with the schema, and the
 * permission decided from the parsed input. A refusal for a repeated field or a missing
 * permission is written to the organization's audit log with the fields that caused it, so an
 * owner sees a member trying. Access violations end the request with 403 or 404; rule
 * violations come back as a message.
 */
export async function orgActionInput<S extends z.ZodType>(
  formData: FormData,
  spec: OrgActionSpec<S>,
): Promise<OrgActionInput<S>> {
  // Membership only, so a refusal below can be recorded in this organization; a second `org`
  // field is a repeated field like any other.
  const org = formData.get("org");
  const ctx = await withOrg(typeof org === "string" ? org : "", { need: "org.read" });
  const form = readForm(formData, spec.lists);
  if (!form.ok) {
    await recordRefusal(
      ctx,
      spec.name,
      "repeated_field",
      auditedFields(form.repeated.map((n) => [n, formData.getAll(n)])),
    );
    return { ok: false, state: { ok: false, message: repeatedFieldMessage(form.repeated) } };
  }
  // A fixed need is checked before parsing, so a role without it learns nothing of the rules.
  if (typeof spec.need === "string") await requirePermission(ctx, spec, spec.need, form.fields);
  const parsed = spec.schema.safeParse(form.fields);
  if (!parsed.success) {
    return {
      ok: false,
      state: { ok: false, message: parsed.error.issues[0]?.message ?? "Invalid input" },
    };
  }
  if (typeof spec.need === "function")
    await requirePermission(ctx, spec, spec.need(parsed.data), form.fields);
  return { ok: true, ctx, input: parsed.data };
}

/** orgActionInput, then `run` with the context and input; AppErrors become the answer. */
export async function runOrgAction<S extends z.ZodType>(
  formData: FormData,
  spec: OrgActionSpec<S>,
  run: (ctx: OrgContext, input: z.output<S>) => Promise<ActionState>,
): Promise<ActionState> {
  const got = await orgActionInput(formData, spec);
  if (!got.ok) return got.state;
  try {
    return await run(got.ctx, got.input);
  } catch (err) {
    rethrowAccessErrors(err);
    return { ok: false, message: (err as Error).message };
  }
}

async function requirePermission(
  ctx: OrgContext,
  spec: { name: string },
  need: Action,
  fields: FormFields,
): Promise<void> {
  if (can(ctx.role, need)) return;
  await recordRefusal(ctx, spec.name, "forbidden", auditedFields(Object.entries(fields)), need);
  forbidden();
}

async function recordRefusal(
  ctx: OrgContext,
  action: string,
  reason: "repeated_field" | "forbidden",
  fields: Record<string, string[]>,
  need?: Action,
): Promise<void> {
  await recordAudit(getDb().kysely, {
    orgId: ctx.org.id,
    actor: userActor(ctx.user, await headers()),
    action: "form.refused",
    target: action,
    details: { reason, role: ctx.role, ...(need ? { need } : {}), fields },
  });
}
