import { withSentryConfig } from "@sentry/nextjs/config";
import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Native and database drivers load from node_modules at run time, never bundled.
  serverExternalPackages: ["better-sqlite3", "pg", "kysely"],
  experimental: {
    // Platform value from the seed contract: prefetched static data stays fresh for 5 minutes.
    staleTimes: { static: 300 },
    // forbidden() and unauthorized() with their 403 and 401 pages, for the permission layer.
    authInterrupts: true,
  },
};

// Faultline is its own Sentry: nothing is uploaded to sentry.io and no telemetry leaves the
// build (builds also run without network).
export default withSentryConfig(nextConfig, {
  telemetry: false,
  silent: true,
  sourcemaps: { disable: true },
  release: { create: false, finalize: false },
});
