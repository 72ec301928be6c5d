// Faultline's own source maps, after `next build` (issue 20): the real sentry-cli injects a
// debug ID into every chunk of the browser (.next/static/chunks) and of the server
// (.next/server), and into its map, so both SDKs name the IDs in `debug_meta`; then the maps
// are packed into one artifact bundle, as sentry-cli would upload it, at
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
  const dirs = [path.join(nextDir, "static", "chunks"), path.join(nextDir, "server")];
  const cli = path.join(root, "node_modules", ".bin", "sentry-cli");
  for (const name of [SELF_BUNDLE, SELF_BUNDLE_INDEX])
    fs.rmSync(path.join(nextDir, name), { force: true });
  if (!fs.existsSync(cli)) {
    // @sentry/cli is a dev dependency whose binary its install script downloads.
    console.warn("[build] no sentry-cli in node_modules: Faultline's own errors stay minified");
    return { maps: 0, bytes: 0 };
  }
  const injected = spawnSync(cli, ["sourcemaps", "inject", "--quiet", ...dirs], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, SENTRY_DISABLE_UPDATE_CHECK: "1", SENTRY_NO_PROGRESS_BAR: "1" },
  });
  if (injected.status !== 0)
    throw new Error(`sentry-cli sourcemaps inject failed (${injected.status})`);

  const files = {};
  const manifest = { files: {} };
  for (const chunk of dirs.flatMap(walk)) {
    if (!chunk.endsWith(".js")) continue;
    const text = fs.readFileSync(chunk, "utf8");
    const debugId = /\/\/# debugId=([0-9a-fA-F-]{32,36})\s*$/.exec(text)?.[1];
    const named = /\/\/# sourceMappingURL=(\S+)\s*(?:\/\/# debugId=\S+\s*)?$/.exec(text)?.[1];
    if (!debugId || !named || named.startsWith("data:")) continue;
    // Turbopack escapes the server chunks' names ("%5Broot-of-the-server%5D__…"), which
    // sentry-cli does not unescape: it then appends its snippet after the code, leaving the
    // map valid as it is, and the chunk's debug ID names it here.
    let map = path.resolve(path.dirname(chunk), named);
    if (!fs.existsSync(map)) {
      try {
        map = path.resolve(path.dirname(chunk), decodeURIComponent(named));
      } catch {
        continue;
      }
    }
    if (!map.startsWith(nextDir + path.sep) || !fs.existsSync(map)) continue;
    const url = `~/_next/${path.relative(nextDir, map).split(path.sep).join("/")}`;
    const entry = `_/${url.slice(2)}`;
    if (manifest.files[entry]) continue;
    files[entry] = fs.readFileSync(map);
    manifest.files[entry] = { url, type: "source_map", headers: { "debug-id": debugId } };
  }
  files["manifest.json"] = Buffer.from(JSON.stringify(manifest));
  // Level 1: maps shrink to about a fifth at a fraction of the time of the default level. A
  // fixed date: the same build packs to the same checksum, which is registered only once.
  const zip = Buffer.from(zipSync(files, { level: 1, mtime: "1980-01-01T00:00:00Z" }));
  const checksum = createHash("sha1").update(zip).digest("hex");
  fs.writeFileSync(path.join(nextDir, SELF_BUNDLE), zip);
  fs.writeFileSync(
    path.join(nextDir, SELF_BUNDLE_INDEX),
    JSON.stringify({ checksum, bundle: SELF_BUNDLE, maps: Object.keys(manifest.files).length }),
  );
  return { maps: Object.keys(manifest.files).length, bytes: zip.byteLength };
}
