import type { z } from "zod";
import type { Action } from "./permissions";
import { type OrgContext, rethrowAccessErrors, withOrg } from "./with-org";

/** What a form's server action hands back to the form (see useActionState). */
export type ActionState = {
  ok: boolean;
  message: string;
  /** A secret shown once, e.g. a new member's temporary password. */
  secret?: string;
} | null;

/**
 * The body of every organization server action. The form names its organization in the field
 * `org`; that is only a claim — the permission is checked again here on every call, from the
 * session, before the input is even parsed. Input is parsed with `schema`; rule violations
 * come back as a message, access violations end the request with 403 or 404.
 */
export async function runOrgAction<S extends z.ZodType>(
  formData: FormData,
  need: Action,
  schema: S,
  run: (ctx: OrgContext, input: z.infer<S>) => Promise<ActionState>,
): Promise<ActionState> {
  const org = formData.get("org");
  const ctx = await withOrg(typeof org === "string" ? org : "", { need });
  const parsed = schema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) {
    return { ok: false, message: parsed.error.issues[0]?.message ?? "Invalid input" };
  }
  try {
    return await run(ctx, parsed.data);
  } catch (err) {
    rethrowAccessErrors(err);
    return { ok: false, message: (err as Error).message };
  }
}
