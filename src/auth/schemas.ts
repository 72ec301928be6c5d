import { z } from "zod";
import { orgSlugSchema } from "../orgs/slug";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./auth";
import { passwordProblem } from "./password-policy";

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

export const newPasswordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters for the password`)
  .max(MAX_PASSWORD_LENGTH);

export const setupSchema = z
  .object({
    name: z.string().trim().min(1, "Enter your name").max(100),
    email,
    password: newPasswordSchema,
    orgName: z.string().trim().min(1, "Name the organization").max(100),
    orgSlug: orgSlugSchema,
  })
  .superRefine((v, ctx) => {
    // The problem's code is the issue's path, which the setup page turns into its words.
    const problem = passwordProblem(v.password, v.email);
    if (problem) ctx.addIssue({ code: "custom", path: [problem], message: problem });
  });

export const changePasswordSchema = z.object({
  currentPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  newPassword: newPasswordSchema,
});

/** Any origin of ours would do: only whether a path keeps it matters. */
const SAME_ORIGIN = "http://faultline.invalid";

/**
 * Where to go after signing in: only a path on this site, so a crafted link cannot send a
 * freshly signed-in user elsewhere. The value is parsed as the browser will parse it, against
 * an origin, and must keep that origin; control characters (which browsers drop, turning
 * `/\t/evil.example` into `//evil.example`) and backslashes (read as `/`) are refused before
 * that. What comes back is the parsed path, percent-encoded as the URL parser writes it.
 */
export function safeNextPath(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > 500 || !value.startsWith("/")) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value, SAME_ORIGIN);
  } catch {
    return undefined;
  }
  if (url.origin !== SAME_ORIGIN) return undefined;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // What the parser made of it must itself stay a path (no `//` it could have normalized to).
  return path.startsWith("//") ? undefined : path;
}

export const forgotPasswordSchema = z.object({ email });

export const resetPasswordSchema = z.object({
  token: z.string().max(100),
  password: newPasswordSchema,
});
