/**
 * The part of self-monitoring that the browser shares with the server: the SDK settings of the
 * seed contract and how the root layout hands the DSN to instrumentation-client.ts.
 * No Node imports here: this file is bundled into the browser.
 */
export const SEED_SDK_OPTIONS = {
  maxBreadcrumbs: 100,
  transportOptions: { bufferSize: 64 },
  enableLogs: true,
} as const;

/** Name of the `<meta>` tag whose content is the JSON of a SelfMonitoringClientConfig. */
export const SELF_MONITORING_META_NAME = "faultline-self-monitoring";

export interface SelfMonitoringClientConfig {
  dsn: string;
  tunnel: string;
  tracesSampleRate: number;
}

/**
 * Parses the meta tag's content; null for anything else, so a missing or damaged tag leaves
 * the SDK off instead of breaking the page. Checked by hand: zod would weigh more than the
 * rest of this file in every page's bundle.
 */
export function parseSelfMonitoringConfig(
  content: string | null | undefined,
): SelfMonitoringClientConfig | null {
  if (!content) return null;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { dsn, tunnel, tracesSampleRate } = value as Record<string, unknown>;
  if (typeof dsn !== "string" || typeof tunnel !== "string" || !tunnel.startsWith("/")) return null;
  if (typeof tracesSampleRate !== "number" || !(tracesSampleRate >= 0 && tracesSampleRate <= 1)) {
    return null;
  }
  return { dsn, tunnel, tracesSampleRate };
}
