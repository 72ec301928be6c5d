"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { clientIpFromHeaders } from "@/src/auth/client-ip";
import { readForm } from "@/src/auth/form-input";
import { requestPasswordReset } from "@/src/auth/password-reset";
import { forgotPasswordSchema } from "@/src/auth/schemas";
import { getDb } from "@/src/db/connection";

/** "Forgot password": the answer is the same for every address (src/auth/password-reset.ts). */
export async function forgotPassword(formData: FormData): Promise<void> {
  const form = readForm(formData);
  const parsed = forgotPasswordSchema.safeParse(form.ok ? form.fields : null);
  if (!parsed.success) redirect("/forgot-password?error=invalid_input");
  const result = await requestPasswordReset(getDb(), {
    email: parsed.data.email,
    ip: clientIpFromHeaders(await headers()),
  });
  redirect(result === "sent" ? "/forgot-password?sent=1" : `/forgot-password?error=${result}`);
}
