/**
 * Log severities, lowest first, in a module of their own so browser code (the volume chart)
 * can name them without the filters' zod schemas.
 */
export const SEVERITIES = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type Severity = (typeof SEVERITIES)[number];
