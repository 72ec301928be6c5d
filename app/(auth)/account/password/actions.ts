"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getAuth } from "@/src/auth/auth";
import { readForm } from "@/src/auth/form-input";
import { changeOwnPassword } from "@/src/auth/password";
import { changePasswordSchema } from "@/src/auth/schemas";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";

export async function changePassword(formData: FormData): Promise<void> {
  const user = await requireUser();
  const form = readForm(formData);
  const parsed = changePasswordSchema.safeParse(form.ok ? form.fields : null);
  if (!parsed.success) redirect("/account/password?error=too_short");
  const result = await changeOwnPassword(
    { db: getDb(), auth: await getAuth() },
    user,
    parsed.data,
    await headers(),
  );
  redirect(result === "changed" ? "/account/password?done=1" : `/account/password?error=${result}`);
}
