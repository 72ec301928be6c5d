import { z } from "zod";

/** The delete form of the project's Source maps section. */
export const bundleRefSchema = z.object({
  project: z.string().min(1).max(100),
  bundle: z
    .string()
    .regex(/^\d{1,15}$/, "not a bundle id")
    .transform(Number),
});
