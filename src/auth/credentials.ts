import { randomBytes } from "node:crypto";
import type { FaultlineAuth } from "./auth";

/**
 * Creates a user that signs in with email and password, through better-auth's own adapter
 * and password hashing (what its admin plugin does), since public sign-up is switched off.
 */
export async function createPasswordUser(
  auth: FaultlineAuth,
  input: { email: string; name: string; password: string },
): Promise<{ id: string }> {
  const ctx = await auth.$context;
  const hash = await ctx.password.hash(input.password);
  const user = await ctx.internalAdapter.createUser(
    { email: input.email.toLowerCase(), name: input.name, emailVerified: false },
    { method: "admin" },
  );
  try {
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: hash,
    });
  } catch (err) {
    // A user without a credential could never sign in, and would block the email address.
    await ctx.internalAdapter.deleteUser(user.id);
    throw err;
  }
  return { id: user.id };
}

/** 20 characters from a 120-bit random value: typed once, then changed by its owner. */
export function generateTemporaryPassword(): string {
  return randomBytes(15).toString("base64url");
}
