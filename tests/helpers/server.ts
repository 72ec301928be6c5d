import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import runtime from "../../scripts/server-runtime.json";
import { repoRoot } from "./root";

/**
 * Starts the real production server (dist/server.js, built by `npm test`) on a free port
 * with its own data directory, and stops it afterwards.
 */
export const ROOT = repoRoot();
export const API_TOKEN = "test-token-0123456789";

export interface RunningServer {
  url: string;
  port: number;
  dsn: string;
  dataDir: string;
  process: ChildProcess;
  logs: () => string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
  api<T = unknown>(pathname: string, token?: string | null): Promise<{ status: number; body: T }>;
}

export interface ServerOptions {
  env?: Record<string, string>;
  dataDir?: string;
  port?: number;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const server = path.join(ROOT, "dist/server.js");
  if (!fs.existsSync(server))
    throw new Error("dist/server.js is missing: run `npm run build` (npm test does)");
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "faultline-srv-"));
  // Started as `npm start` starts it (scripts/start.mjs): same node flags and memory settings.
  const child = spawn(process.execPath, [...runtime.nodeArgs, server], {
    cwd: ROOT,
    env: {
      ...runtime.env,
      ...process.env,
      NODE_ENV: "production",
      PORT: String(options.port ?? 0),
      HOST: "127.0.0.1",
      FAULTLINE_DATA_DIR: dataDir,
      FAULTLINE_API_TOKEN: API_TOKEN,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );

  const started = Date.now();
  let port = 0;
  let dsn = "";
  while (!dsn) {
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
    const d = /DSN: (\S+)/.exec(output);
    if (m && d) {
      port = Number(m[1]);
      dsn = d[1] as string;
      break;
    }
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    if (Date.now() - started > 60_000) throw new Error(`server did not start in 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    dsn: dsn.replace(/localhost:\d+/, `127.0.0.1:${port}`),
    dataDir,
    process: child,
    logs: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
    kill9: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    api: async (pathname, token = API_TOKEN) => {
      const res = await fetch(`${url}${pathname}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as never };
    },
  };
}

/** Polls until `check` returns a truthy value, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
