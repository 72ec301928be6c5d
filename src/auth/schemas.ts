import { z } from "zod";
import { orgSlugSchema } from "../orgs/slug";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./auth";

const email = z.string().trim().toLowerCase().pipe(z.email("Enter a valid email address"));

export const signInSchema = z.object({
  email,
  password: z.string().min(1, "Enter your password").max(MAX_PASSWORD_LENGTH),
});

export const ssoSignInSchema = z.object({
  email,
  /** Only when two organizations admit the same domain. */
  org: z
    .string()
    .trim()
    .toLowerCase()
    .max(50)
    .optional()
    .transform((v) => v || undefined),
});

const newPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters for the password`)
  .max(MAX_PASSWORD_LENGTH);

export const setupSchema = z.object({
  name: z.string().trim().min(1, "Enter your name").max(100),
  email,
  password: newPassword,
  orgName: z.string().trim().min(1, "Name the organization").max(100),
  orgSlug: orgSlugSchema,
});

export const changePasswordSchema = z.object({
  currentPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  newPassword,
});

/**
 * Where to go after signing in: only a path on this site, so a crafted link cannot send a
 * freshly signed-in user elsewhere.
 */
export function safeNextPath(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//"))
    return undefined;
  if (value.includes("\\") || value.length > 500) return undefined;
  return value;
}
