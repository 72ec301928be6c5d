import * as Sentry from "@sentry/nextjs";

/**
 * Faultline's server reports its own errors and traces into its `faultline` project, through
 * its own tunnel (see src/projects/self-monitoring.ts). Self-monitoring is a guest: if the
 * DSN cannot be read or the SDK fails to start, the app serves without it.
 */
export async function register(): Promise<void> {
  // NEXT_RUNTIME is replaced at build time, so the edge build drops the Node.js-only import.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    try {
      const { initServerSdk } = await import("./src/projects/self-monitoring-server");
      await initServerSdk();
    } catch (err) {
      console.error("[self-monitoring] the server SDK is off:", err);
    }
  }
}

export const onRequestError = Sentry.captureRequestError;
