"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getAuth } from "@/src/auth/auth";
import { clientIpFromHeaders } from "@/src/auth/client-ip";
import { readForm } from "@/src/auth/form-input";
import { PASSWORD_PROBLEMS } from "@/src/auth/password-policy";
import { completePasswordReset } from "@/src/auth/password-reset";
import { resetPasswordSchema } from "@/src/auth/schemas";
import { getDb } from "@/src/db/connection";
import { isInvitationToken } from "@/src/orgs/invitations";

export async function resetPassword(formData: FormData): Promise<void> {
  const form = readForm(formData);
  const token = form.ok ? form.fields.token : undefined;
  // Only a well-formed token goes back into the URL; anything else is not a link of ours.
  if (typeof token !== "string" || !isInvitationToken(token)) redirect("/reset-password/invalid");
  const parsed = resetPasswordSchema.safeParse(form.ok ? form.fields : null);
  if (!parsed.success) redirect(`/reset-password/${token}?error=password`);
  const result = await completePasswordReset(
    { db: getDb(), auth: await getAuth() },
    { ...parsed.data, ip: clientIpFromHeaders(await headers()) },
  );
  if (!result.ok)
    redirect(
      `/reset-password/${token}${result.reason in PASSWORD_PROBLEMS ? `?error=${result.reason}` : ""}`,
    );
  redirect("/sign-in?reset=1");
}
