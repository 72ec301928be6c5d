import { betterAuth } from "better-auth";
import { nextCookies } from "better-auth/next-js";
import { type Db, getDb } from "../db/connection";
import { env } from "../env";
import { authSchemaOptions } from "./auth-tables";
import { authSecret } from "./secret";
import { sessionLifetimeOptions } from "./sessions";

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 128;

export function authRuntimeOptions(db: Db, secret: string) {
  const config = env();
  const secure = config.FAULTLINE_URL?.startsWith("https://") ?? false;
  return {
    ...authSchemaOptions(db.kysely, db.dialect),
    appName: "Faultline",
    secret,
    // Unset: better-auth takes the origin from each request to its own handler.
    baseURL: config.FAULTLINE_URL,
    emailAndPassword: {
      enabled: true,
      // Accounts are made by /setup and by admins adding members, never by visitors.
      disableSignUp: true,
      autoSignIn: false,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
    },
    // Sign-in happens only in the /sign-in server action, which applies Faultline's
    // per-account and per-IP limits (src/auth/sign-in.ts); this HTTP door would bypass them.
    disabledPaths: ["/sign-in/email", "/sign-up/email"],
    rateLimit: {
      // For the remaining /api/auth/* endpoints, keyed by X-Forwarded-For (see client-ip.ts).
      enabled: true,
      storage: "memory" as const,
    },
    advanced: {
      cookiePrefix: "faultline",
      // HttpOnly and SameSite=Lax are better-auth's defaults, stated here so they stay. Secure
      // follows the public URL, so a plain-http install (a LAN address) can still sign in.
      useSecureCookies: secure,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" as const, secure },
      ipAddress: { ipAddressHeaders: ["x-forwarded-for"] },
    },
    // Idle lifetime here; the absolute one is checked where sessions are read (sessions.ts).
    session: sessionLifetimeOptions(),
    telemetry: { enabled: false },
    // Last, as better-auth asks: copies the Set-Cookie of auth.api calls into Next's cookies().
    plugins: [nextCookies()],
  };
}

export async function createAuth(db: Db) {
  return betterAuth(authRuntimeOptions(db, await authSecret(db)));
}

export type FaultlineAuth = Awaited<ReturnType<typeof createAuth>>;

const globalForAuth = globalThis as unknown as { __faultlineAuth?: Promise<FaultlineAuth> };

/** The process-wide instance on the process-wide connection (shared like getDb()). */
export function getAuth(): Promise<FaultlineAuth> {
  if (!globalForAuth.__faultlineAuth) {
    globalForAuth.__faultlineAuth = createAuth(getDb()).catch((err) => {
      globalForAuth.__faultlineAuth = undefined;
      throw err;
    });
  }
  return globalForAuth.__faultlineAuth;
}
