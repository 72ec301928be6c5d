// `npm start`: build when there is no build yet (a fresh clone), then run the server, which
// migrates the database before it listens.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";

// Process-level memory settings, shared with the tests: see the file's "why".
const runtime = JSON.parse(
  fs.readFileSync(new URL("./server-runtime.json", import.meta.url), "utf8"),
);

const role = process.env.FAULTLINE_ROLE ?? "all";
const needsNext = role === "all" || role === "web";
if (!fs.existsSync("dist/server.js") || (needsNext && !fs.existsSync(".next/BUILD_ID"))) {
  const args = ["scripts/build.mjs", ...(needsNext ? [] : ["--server-only"])];
  const result = spawnSync(process.execPath, args, { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const child = spawn(process.execPath, [...runtime.nodeArgs, "dist/server.js"], {
  stdio: "inherit",
  env: { NODE_ENV: "production", ...runtime.env, ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
