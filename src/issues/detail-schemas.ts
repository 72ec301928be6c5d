import { z } from "zod";
import { FREQUENCY_RANGES, type FrequencyRange } from "./detail-queries";

/** Issue ids are database ids: digits only, and small enough to be exact in a double. */
export const issueIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, "Not an issue id")
  .transform(Number);

export const triageSchema = z.object({ issueId: issueIdSchema });

/** The issue page's query string: which event (32 hex digits, as SDKs send) and chart range. */
export const issuePageSearchSchema = z.object({
  event: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .optional(),
  range: z
    .enum(Object.keys(FREQUENCY_RANGES) as [FrequencyRange, ...FrequencyRange[]])
    .catch("24h")
    .default("24h"),
  /** Which frames of a symbolicated event to show: the original ones, or as the SDK sent them. */
  frames: z.enum(["original", "minified"]).catch("original").default("original"),
});
