import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "./root";

/**
 * A small TypeScript app with a dependency, bundled and minified by the real esbuild, its
 * debug IDs injected by the real `sentry-cli sourcemaps inject`: what a JavaScript team
 * ships. `variant` changes the bundle (its hash, names and positions) but not the code that
 * throws, as two deploys of the same bug do.
 */
export interface MinifiedApp {
  dir: string;
  js: string;
  map: string;
  debugId: string;
}

const APP = `import { padLeft } from "lefty";

export class Checkout {
  total(items: number[]): number {
    return items.reduce((a, b) => a + b, 0);
  }

  submit(order: { items: number[] }): string {
    const sum = this.total(order.items);
    return validateOrder(sum);
  }
}

function validateOrder(sum: number): string {
  if (sum > 10) {
    throw new Error(\`order total \${sum} is over the limit\`);
  }
  return padLeft(null as unknown as string, sum);
}

export function main(items: number[]): string {
  return new Checkout().submit({ items });
}
`;

const LIB = `module.exports.padLeft = function padLeft(s, n) {
  return s.padStart(n);
};
`;

export function bin(name: string): string {
  return path.join(repoRoot(), "node_modules", ".bin", name);
}

export function buildMinifiedApp(
  options: { variant?: number; platform?: "node" | "browser"; inject?: boolean } = {},
): MinifiedApp {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-minified-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.mkdirSync(path.join(dir, "node_modules", "lefty"), { recursive: true });
  // Each variant puts its own lines above the app: other names, positions and hashes.
  const extra = Array.from(
    { length: options.variant ?? 0 },
    (_, i) => `export function unused${i}(): number {\n  return ${i};\n}\n`,
  ).join("");
  fs.writeFileSync(path.join(dir, "src", "app.ts"), `${extra}${APP}`);
  fs.writeFileSync(path.join(dir, "node_modules", "lefty", "index.js"), LIB);
  const platform = options.platform ?? "node";
  const name = `app.${(options.variant ?? 0).toString(16).padStart(4, "0")}.js`;
  execFileSync(
    bin("esbuild"),
    [
      "src/app.ts",
      "--bundle",
      "--minify",
      "--sourcemap",
      `--platform=${platform}`,
      ...(platform === "browser" ? ["--format=iife", "--global-name=App"] : []),
      `--outfile=dist/${name}`,
      "--log-level=warning",
    ],
    { cwd: dir },
  );
  const js = path.join(dir, "dist", name);
  if (options.inject !== false)
    execFileSync(bin("sentry-cli"), ["sourcemaps", "inject", "dist"], {
      cwd: dir,
      stdio: "pipe",
      env: { ...process.env, SENTRY_LOG_LEVEL: "warn" },
    });
  const map = `${js}.map`;
  const parsed = JSON.parse(fs.readFileSync(map, "utf8")) as {
    debugId?: string;
    debug_id?: string;
  };
  return { dir, js, map, debugId: parsed.debugId ?? parsed.debug_id ?? "" };
}

/**
 * The app for the browser, with @sentry/browser bundled in as a web app ships it: one
 * minified IIFE (esbuild's API, so @sentry/browser resolves from the repository's
 * node_modules), debug IDs injected. The page sets `FAULTLINE_DSN` and `FAULTLINE_RELEASE`
 * and calls `runApp()`, which throws, reports and flushes.
 */
export async function buildBrowserApp(options: { inject?: boolean } = {}): Promise<MinifiedApp> {
  const { build } = await import("esbuild");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-minified-web-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.mkdirSync(path.join(dir, "node_modules", "lefty"), { recursive: true });
  fs.writeFileSync(path.join(dir, "src", "app.ts"), APP);
  fs.writeFileSync(path.join(dir, "node_modules", "lefty", "index.js"), LIB);
  fs.writeFileSync(
    path.join(dir, "src", "entry.ts"),
    `import * as Sentry from "@sentry/browser";
import { main } from "./app";

const page = window as unknown as { FAULTLINE_DSN: string; FAULTLINE_RELEASE: string; runApp(): Promise<boolean> };
Sentry.init({ dsn: page.FAULTLINE_DSN, release: page.FAULTLINE_RELEASE, tracesSampleRate: 0 });
page.runApp = () => {
  try {
    main([5, 6, 7]);
  } catch (err) {
    Sentry.captureException(err);
  }
  return Sentry.flush(10_000);
};
`,
  );
  const js = path.join(dir, "dist", "static", "app.3f9c2a1b.js");
  await build({
    entryPoints: [path.join(dir, "src", "entry.ts")],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: "iife",
    platform: "browser",
    outfile: js,
    nodePaths: [path.join(repoRoot(), "node_modules")],
    logLevel: "warning",
  });
  if (options.inject !== false)
    execFileSync(bin("sentry-cli"), ["sourcemaps", "inject", path.dirname(js)], { stdio: "pipe" });
  const map = `${js}.map`;
  const parsed = JSON.parse(fs.readFileSync(map, "utf8")) as {
    debugId?: string;
    debug_id?: string;
  };
  return { dir, js, map, debugId: parsed.debugId ?? parsed.debug_id ?? "" };
}

/** Runs the bundle in Node and returns the stack of what it threw. */
export function stackOf(app: MinifiedApp, items: number[]): string {
  const script = `try { require(${JSON.stringify(app.js)}).main(${JSON.stringify(items)}) } catch (e) { process.stdout.write(e.stack) }`;
  return execFileSync(process.execPath, ["-e", script], { encoding: "utf8" });
}
