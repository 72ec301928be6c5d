import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Native and database drivers load from node_modules at run time, never bundled.
  serverExternalPackages: ["better-sqlite3", "pg", "kysely"],
  experimental: {
    // Platform value from the seed contract: prefetched static data stays fresh for 5 minutes.
    staleTimes: { static: 300 },
  },
};

export default nextConfig;
