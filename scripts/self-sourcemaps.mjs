// Faultline's own browser source maps, after `next build` (issue 20): the real sentry-cli
// injects a debug ID into every chunk under .next/static/chunks (and into its map), then the
// maps are packed into one artifact bundle, as sentry-cli would upload it, at
// .next/faultline-sourcemaps.bundle with its checksum in .next/faultline-sourcemaps.json. The
// server registers that bundle for its `faultline` project at start
// (src/sourcemaps/self-bundle.ts): same disk, no upload.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { zipSync } from "fflate";

export const SELF_BUNDLE = "faultline-sourcemaps.bundle";
export const SELF_BUNDLE_INDEX = "faultline-sourcemaps.json";

function walk(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else out.push(full);
  }
  return out;
}

export function buildSelfSourceMaps(root) {
  const nextDir = path.join(root, ".next");
  const chunks = path.join(nextDir, "static", "chunks");
  const cli = path.join(root, "node_modules", ".bin", "sentry-cli");
  const injected = spawnSync(cli, ["sourcemaps", "inject", "--quiet", chunks], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, SENTRY_DISABLE_UPDATE_CHECK: "1", SENTRY_NO_PROGRESS_BAR: "1" },
  });
  if (injected.status !== 0)
    throw new Error(`sentry-cli sourcemaps inject failed (${injected.status})`);

  const files = {};
  const manifest = { files: {} };
  for (const file of walk(chunks)) {
    if (!file.endsWith(".js.map")) continue;
    const bytes = fs.readFileSync(file);
    let debugId;
    try {
      const map = JSON.parse(bytes.toString("utf8"));
      debugId = map.debug_id ?? map.debugId;
    } catch {
      continue;
    }
    if (typeof debugId !== "string") continue;
    const url = `~/_next/${path.relative(nextDir, file).split(path.sep).join("/")}`;
    const entry = `_/${url.slice(2)}`;
    files[entry] = bytes;
    manifest.files[entry] = { url, type: "source_map", headers: { "debug-id": debugId } };
  }
  files["manifest.json"] = Buffer.from(JSON.stringify(manifest));
  // Level 1: maps shrink to about a fifth at a fraction of the time of the default level.
  const zip = Buffer.from(zipSync(files, { level: 1 }));
  const checksum = createHash("sha1").update(zip).digest("hex");
  fs.writeFileSync(path.join(nextDir, SELF_BUNDLE), zip);
  fs.writeFileSync(
    path.join(nextDir, SELF_BUNDLE_INDEX),
    JSON.stringify({ checksum, bundle: SELF_BUNDLE, maps: Object.keys(manifest.files).length }),
  );
  return { maps: Object.keys(manifest.files).length, bytes: zip.byteLength };
}
