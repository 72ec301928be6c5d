import { withSentryConfig } from "@sentry/nextjs/config";

// Plain JavaScript on purpose: a next.config.ts is transpiled with SWC at every server start,
// which loads Next's 100 MB native SWC binding into the running server (~80 MB of RSS).
/** @type {import("next").NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Faultline's own browser errors are symbolicated by Faultline: the build writes each chunk's
  // map beside it, scripts/build.mjs gives the chunks debug IDs and packs the maps into a bundle
  // that the server registers for its `faultline` project at start. The maps are separate
  // files (first-load JS is unchanged) and the server never serves them (src/server/static-maps.ts).
  productionBrowserSourceMaps: true,
  // On every response of the UI and the API; pages add their nonce policy in proxy.ts.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
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
