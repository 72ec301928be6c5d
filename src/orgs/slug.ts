import { z } from "zod";

/**
 * Organizations live at the top of the URL space (`/<slug>`), beside Faultline's own routes,
 * so those names cannot be organization slugs.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  "_next",
  "account",
  "api",
  "e2e",
  "healthz",
  "invite",
  "monitoring",
  "new",
  "organizations",
  "settings",
  "setup",
  "sign-in",
  "sign-out",
  "static",
  // Public status pages (issue 34): /status/<page slug>.
  "status",
]);

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$/;

export const orgSlugSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    SLUG_PATTERN,
    "Use 1–50 lowercase letters, digits and dashes, not starting or ending with a dash",
  )
  .refine((slug) => !RESERVED_SLUGS.has(slug), "That name is reserved; choose another");

/** A URL segment that could name an organization (anything else cannot exist). */
export function isOrgSlug(value: string): boolean {
  const parsed = orgSlugSchema.safeParse(value);
  return parsed.success && parsed.data === value;
}
