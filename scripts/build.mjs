// Builds what `npm start` runs: the node:http server and its worker thread (esbuild, a
// second or two) and, unless --server-only, the Next.js production build.
import { spawnSync } from "node:child_process";
import { build } from "esbuild";
import { buildSelfSourceMaps } from "./self-sourcemaps.mjs";

const serverOnly = process.argv.includes("--server-only");

await build({
  entryPoints: {
    server: "server.ts",
    "worker-thread": "src/ingest/workers/worker-thread.ts",
    "processor-thread": "src/ingest/workers/processor-thread.ts",
    "checkpoint-thread": "src/db/checkpoint-thread.ts",
    "web-thread": "src/server/web-thread.ts",
    migrate: "scripts/migrate.ts",
    backup: "scripts/backup.ts",
    restore: "scripts/restore.ts",
    admin: "scripts/admin.ts",
    "bench-ingest": "scripts/bench-ingest.ts",
    "bench-org-deletion": "scripts/bench-org-deletion.ts",
    "seed-demo": "scripts/seed-demo.ts",
    "bench-ui": "scripts/bench-ui.ts",
    "bench-ui-perf-traces": "scripts/bench-ui-perf-traces.ts",
    "bench-ui-releases-stats": "scripts/bench-ui-releases-stats.ts",
    "bench-logs": "scripts/bench-logs.ts",
    "bench-live-tail": "scripts/bench-live-tail.ts",
    "bench-migrations": "scripts/bench-migrations.ts",
    "bench-uptime": "scripts/bench-uptime.ts",
  },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  // Dependencies load from node_modules (native modules cannot be bundled anyway).
  packages: "external",
  alias: { "@": "." },
  logLevel: "warning",
});

if (!serverOnly) {
  const result = spawnSync("npx", ["next", "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const started = Date.now();
  const own = buildSelfSourceMaps(process.cwd());
  console.log(
    `Own source maps: ${own.maps} maps with debug IDs, bundle of ${own.bytes} bytes (${Date.now() - started} ms)`,
  );
}
