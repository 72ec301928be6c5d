"use server";

import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { userActor } from "@/src/audit/actor";
import { readForm } from "@/src/auth/form-input";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { isAppError } from "@/src/errors";
import { createOrganization } from "@/src/orgs/create";
import { createOrgSchema } from "@/src/orgs/schemas";

/**
 * Creates an organization owned by the signed-in user, then opens its projects page, where
 * the first project and its DSN are one form away. The policy refusal is a 403; other errors
 * go back to the form as the name of the field at fault.
 */
export async function createOrg(formData: FormData): Promise<void> {
  const user = await requireUser();
  // One value per field (src/auth/form-input.ts): a repeated field is refused, not resolved.
  const form = readForm(formData);
  if (!form.ok) redirect("/organizations/new?error=form");
  const { name, slug: typed } = form.fields;
  const parsed = createOrgSchema.safeParse({
    name: name ?? undefined,
    slug: typed === "" ? undefined : typed,
  });
  if (!parsed.success)
    redirect(`/organizations/new?error=${String(parsed.error.issues[0]?.path[0] ?? "form")}`);
  let slug: string;
  try {
    const org = await createOrganization(getDb(), parsed.data, {
      userId: user.id,
      actor: userActor(user, await headers()),
    });
    slug = org.slug;
  } catch (err) {
    if (isAppError(err) && err.code === "forbidden") forbidden();
    if (isAppError(err) && err.code === "bad_request") redirect("/organizations/new?error=taken");
    throw err;
  }
  redirect(`/${slug}/projects`);
}
