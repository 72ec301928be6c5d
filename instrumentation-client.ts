import * as Sentry from "@sentry/nextjs";
import {
  parseSelfMonitoringConfig,
  SEED_SDK_OPTIONS,
  SELF_MONITORING_META_NAME,
} from "./src/projects/self-monitoring-config";

/**
 * Faultline's pages report their own errors and page loads into its `faultline` project.
 * The DSN key is created at first start, so the root layout renders it into a meta tag at
 * request time instead of it being built in. No tag (or a damaged one): the SDK stays off.
 */
const META_SELECTOR = `meta[name="${SELF_MONITORING_META_NAME}"]`;

function initBrowserSdk(): void {
  try {
    const config = parseSelfMonitoringConfig(
      document.querySelector(META_SELECTOR)?.getAttribute("content"),
    );
    if (!config) return;
    Sentry.init({
      dsn: config.dsn,
      tunnel: config.tunnel,
      tracesSampleRate: config.tracesSampleRate,
      ...SEED_SDK_OPTIONS,
    });
  } catch (err) {
    console.error("[self-monitoring] the browser SDK is off:", err);
  }
}

// Next runs this file once the document is loaded; should the head still be streaming, wait.
if (document.querySelector(META_SELECTOR) || document.readyState !== "loading") initBrowserSdk();
else document.addEventListener("DOMContentLoaded", initBrowserSdk, { once: true });

export const onRouterTransitionStart = Sentry.captureRouterTransitionStart;
