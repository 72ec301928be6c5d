import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../tests/helpers/root";

/**
 * A large generated TypeScript app for the `sourcemapped` benchmark: `modules` modules of
 * 40 functions each, bundled and minified by esbuild (~2 MB with 270 modules, its map
 * ~8 MB with the sources' content), debug IDs injected by sentry-cli. `throwAt(i)` throws
 * from module i % modules, five calls deep, so errors come from all over the bundle.
 */
export interface BigApp {
  js: string;
  map: string;
  debugId: string;
}

function moduleSource(m: number, seed: number): string {
  const fns: string[] = [];
  for (let f = 0; f < 40; f++) {
    fns.push(`/** Step ${f} of module ${m} (build ${seed}). */
export function stage${m}x${f}(readings: number[], limit: number, depth: number): number {
  let score = ${f + seed};
  for (const reading of readings) {
    const weighted = reading * ${(f % 7) + 1} + (score % ${(m % 11) + 3});
    score = weighted > limit ? score - weighted / 2 : score + weighted;
  }
  if (depth > 0) return ${f < 39 ? `stage${m}x${f + 1}` : `stage${m}x0`}(readings, limit, depth - 1);
  if (score > -1) {
    throw new Error(\`stage ${m}.${f} rejected a score of \${Math.round(score)}\`);
  }
  return score;
}
`);
  }
  return fns.join("\n");
}

export function buildBigApp(modules: number, seed = 0): BigApp {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bigapp-"));
  fs.mkdirSync(path.join(dir, "src"));
  const imports: string[] = [];
  const entries: string[] = [];
  for (let m = 0; m < modules; m++) {
    fs.writeFileSync(path.join(dir, "src", `module${m}.ts`), moduleSource(m, seed));
    imports.push(`import { stage${m}x0 } from "./module${m}";`);
    entries.push(`stage${m}x0`);
  }
  fs.writeFileSync(
    path.join(dir, "src", "index.ts"),
    `${imports.join("\n")}
const entries = [${entries.join(", ")}];
export function throwAt(i: number): number {
  const entry = entries[i % entries.length];
  return entry ? entry([i, i * 2, i * 3], 1000, 4) : 0;
}
`,
  );
  const root = repoRoot();
  const name = `app.${seed.toString(16).padStart(8, "0")}.js`;
  execFileSync(
    path.join(root, "node_modules/.bin/esbuild"),
    [
      "src/index.ts",
      "--bundle",
      "--minify",
      "--sourcemap",
      "--platform=node",
      `--outfile=dist/${name}`,
      "--log-level=warning",
    ],
    { cwd: dir },
  );
  execFileSync(path.join(root, "node_modules/.bin/sentry-cli"), ["sourcemaps", "inject", "dist"], {
    cwd: dir,
    stdio: "pipe",
  });
  const js = path.join(dir, "dist", name);
  const map = `${js}.map`;
  const parsed = JSON.parse(fs.readFileSync(map, "utf8")) as {
    debugId?: string;
    debug_id?: string;
  };
  return { js, map, debugId: parsed.debugId ?? parsed.debug_id ?? "" };
}
