import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * A PostgreSQL cluster of the test's own (never the shared server other tests use), so that
 * the test may stop, crash and restart it: `initdb` into a temporary folder, then `pg_ctl`
 * on a free port of 127.0.0.1. PostgreSQL refuses to run as root, so when the tests run as
 * root its commands run as the `postgres` OS user, in a folder that user owns.
 */
export const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export interface PgCluster {
  port: number;
  /** A database of its own on this cluster, created now. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m <mode>`: fast ends every session (57P01), immediate crashes. */
  stop(mode: "fast" | "immediate"): void;
  start(): void;
  /** SQL as the superuser, on a connection of its own (for pg_terminate_backend, counts). */
  query<T extends pg.QueryResultRow>(database: string, text: string): Promise<T[]>;
  destroy(): void;
}

export function pgClusterAvailable(): boolean {
  return fs.existsSync(path.join(PG_BIN, "initdb"));
}

export async function startPgCluster(): Promise<PgCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-pgcluster-"));
  const data = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["postgres:postgres", dir]);
  const run = (bin: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : path.join(PG_BIN, bin), [
      ...(asRoot ? ["-u", "postgres", "--", path.join(PG_BIN, bin)] : []),
      ...args,
    ]).toString();
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const start = () => {
    run("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-o", options, "-w", "start"]);
  };
  start();
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <T extends pg.QueryResultRow>(database: string, text: string) => {
    const client = new pg.Client({ connectionString: url(database) });
    // A session of ours that the cluster ends (a stop) must not crash the test process.
    client.on("error", () => {});
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    port,
    async createDatabase(name) {
      await query("postgres", `CREATE DATABASE ${name}`);
      return url(name);
    },
    stop(mode) {
      run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
    },
    start,
    query,
    destroy() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // Not running.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
