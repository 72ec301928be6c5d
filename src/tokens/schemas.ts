import { z } from "zod";
import { PERSONAL_TOKEN_SCOPES } from "../auth/permissions";

/** A token's name, as a person chooses it ("CI for web", "laptop"). */
export const tokenNameSchema = z
  .string()
  .trim()
  .min(1, "give the token a name")
  .max(100, "use at most 100 characters for the name");

export const personalScopeSchema = z.enum(PERSONAL_TOKEN_SCOPES);

/** Days a personal token lives; empty means it never expires. */
export const EXPIRY_DAYS = [7, 30, 90, 365] as const;

export const createOrgTokenSchema = z.object({ name: tokenNameSchema });

export const createPersonalTokenSchema = z.object({
  name: tokenNameSchema,
  scopes: z
    .array(personalScopeSchema, { message: "choose scopes from the listed ones" })
    .min(1, "choose at least one scope")
    .max(PERSONAL_TOKEN_SCOPES.length),
  /** Milliseconds since the epoch; null or absent: never. */
  expiresAt: z.number().int().positive().nullable().optional(),
});

export const tokenIdSchema = z.coerce
  .number({ message: "not a token id" })
  .int()
  .positive()
  .max(Number.MAX_SAFE_INTEGER);

export const tokenIdBodySchema = z.object({ tokenId: tokenIdSchema });

/** The REST body of `POST /api/0/api-tokens/`: Sentry's names, plus an ISO `expiresAt`. */
export const personalTokenBodySchema = z.object({
  name: tokenNameSchema.optional(),
  scopes: z.array(personalScopeSchema).min(1),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
});

/** The form of account → API tokens. */
export const personalTokenFormSchema = z.object({
  name: tokenNameSchema,
  expiresInDays: z
    .enum(["", ...EXPIRY_DAYS.map(String)] as [string, ...string[]], {
      message: "choose one of the offered expiry periods",
    })
    .default(""),
});
