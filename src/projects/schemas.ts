import { z } from "zod";
import { SLUG_PATTERN } from "../orgs/slug";
import { PLATFORMS, slugFromName } from "./platforms";

export {
  knownPlatform,
  PLATFORM_LABELS,
  PLATFORMS,
  type Platform,
  slugFromName,
} from "./platforms";

/**
 * Input of the project and DSN key forms. Every field arrives as a string from FormData;
 * these schemas are the only place that turns them into typed values.
 */
const SLUG_RULE =
  "Use 1–50 lowercase letters, digits and dashes, not starting or ending with a dash";

export const projectSlugSchema = z.string().trim().toLowerCase().regex(SLUG_PATTERN, SLUG_RULE);

const name = z
  .string()
  .trim()
  .min(1, "Enter a project name")
  .max(100, "Keep the name under 100 characters");
const platform = z.enum(PLATFORMS, "Choose a platform");

export const createProjectSchema = z
  .object({ name, slug: z.string().trim().max(100).optional(), platform })
  .transform((input, ctx) => {
    const slug = input.slug ? input.slug.toLowerCase() : slugFromName(input.name);
    const parsed = projectSlugSchema.safeParse(slug);
    if (!parsed.success) {
      ctx.addIssue({
        code: "custom",
        path: ["slug"],
        message: input.slug ? SLUG_RULE : "The name has no letters or digits; enter a slug",
      });
      return z.NEVER;
    }
    return { name: input.name, slug: parsed.data, platform: input.platform };
  });
export type CreateProjectInput = z.output<typeof createProjectSchema>;

/** Every project form names its project by slug; the organization comes from `org`. */
const project = z.string().min(1).max(100);

export const updateProjectSchema = z.object({ project, name, platform });

/** Keys are named by their public key, 32 hex characters. */
const key = z.string().regex(/^[0-9a-f]{32}$/, "Unknown key");

export const createKeySchema = z.object({
  project,
  label: z
    .string()
    .trim()
    .max(64, "Keep the label under 64 characters")
    .transform((v) => v || "Default"),
});

export const keyRefSchema = z.object({ project, key });

export const setKeyEnabledSchema = z.object({
  project,
  key,
  enabled: z.enum(["0", "1"]).transform((v) => v === "1"),
});

/** At most `count` events per `window` seconds; a window of a day at most, like Sentry's. */
export const rateLimitShape = z.object({
  window: z.number().int().min(1).max(86_400),
  count: z.number().int().min(0).max(1e9),
});
export type RateLimit = z.infer<typeof rateLimitShape>;

export const RATE_LIMIT_WINDOWS = [
  { seconds: 60, label: "per minute" },
  { seconds: 3600, label: "per hour" },
  { seconds: 86_400, label: "per day" },
] as const;

/** The form: an empty count removes the limit. */
export const setRateLimitSchema = z
  .object({
    project,
    key,
    window: z.coerce.number("Choose a window").int().min(1).max(86_400, "A day at most"),
    count: z
      .string()
      .trim()
      .regex(/^\d{0,10}$/, "Enter a whole number of events, or leave it empty for no limit"),
  })
  .transform(({ count, window, ...rest }, ctx) => {
    if (count === "") return { ...rest, rateLimit: null };
    const parsed = rateLimitShape.safeParse({ window, count: Number(count) });
    if (!parsed.success) {
      ctx.addIssue({ code: "custom", path: ["count"], message: "At most 1,000,000,000 events" });
      return z.NEVER;
    }
    return { ...rest, rateLimit: parsed.data };
  });
