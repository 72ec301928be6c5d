"use server";

import { forbidden, redirect } from "next/navigation";
import { z } from "zod";
import { readForm } from "@/src/auth/form-input";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { isAppError } from "@/src/errors";
import { addInstanceAdmin, removeInstanceAdmin, requireInstanceAdmin } from "@/src/instance/admins";
import { ORG_CREATION, setOrgCreationPolicy } from "@/src/instance/policy";

/**
 * The instance page's forms. Each checks, from the session, that the caller administers the
 * instance before it reads its input; the outcome comes back in the URL as a fixed code.
 */
const PAGE = "/settings/instance";

/** The caller must administer the instance; then the form is read once (a repeat refused). */
async function adminForm(formData: FormData): Promise<Record<string, unknown>> {
  const user = await requireUser();
  try {
    await requireInstanceAdmin(getDb(), user.id);
  } catch {
    forbidden();
  }
  const form = readForm(formData);
  if (!form.ok) redirect(`${PAGE}?error=form`);
  return form.fields;
}

function done(code: string): never {
  redirect(`${PAGE}?done=${code}`);
}

function failed(err: unknown, code: string): never {
  if (isAppError(err) && (err.code === "bad_request" || err.code === "not_found"))
    redirect(`${PAGE}?error=${code}`);
  throw err;
}

const policySchema = z.object({ policy: z.enum(ORG_CREATION) });

export async function setPolicy(formData: FormData): Promise<void> {
  const parsed = policySchema.safeParse(await adminForm(formData));
  if (!parsed.success) redirect(`${PAGE}?error=policy`);
  await setOrgCreationPolicy(getDb(), parsed.data.policy);
  done("policy");
}

const emailSchema = z.object({ email: z.string().trim().toLowerCase().pipe(z.email()) });

export async function addAdmin(formData: FormData): Promise<void> {
  const parsed = emailSchema.safeParse(await adminForm(formData));
  if (!parsed.success) redirect(`${PAGE}?error=email`);
  try {
    await addInstanceAdmin(getDb(), parsed.data.email);
  } catch (err) {
    failed(err, "unknown_user");
  }
  done("admin_added");
}

const userSchema = z.object({ userId: z.string().min(1).max(100) });

export async function removeAdmin(formData: FormData): Promise<void> {
  const parsed = userSchema.safeParse(await adminForm(formData));
  if (!parsed.success) redirect(`${PAGE}?error=user`);
  try {
    await removeInstanceAdmin(getDb(), parsed.data.userId);
  } catch (err) {
    failed(err, "last_admin");
  }
  done("admin_removed");
}
