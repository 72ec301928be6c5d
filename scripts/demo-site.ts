import fs from "node:fs";
import path from "node:path";
import { actionId, Client } from "../tests/auth/http-client";

/**
 * Where the demo installation lives and how to get into it; shared by `npm run seed:demo`
 * and `npm run bench:ui`. SQLite under SEED_DATA_DIR (default data/demo) unless
 * DATABASE_URL names a PostgreSQL database.
 */
export const DEMO_DATA_DIR = path.resolve(process.env.SEED_DATA_DIR ?? "data/demo");
export const DEMO_DATABASE_URL =
  process.env.DATABASE_URL ?? `file:${path.join(DEMO_DATA_DIR, "faultline.db")}`;
export const DEMO_OWNER = {
  name: "Demo Owner",
  email: "demo@example.com",
  password: "faultline sample password",
  orgName: "Demo",
  orgSlug: "demo",
};

export interface SeedInfo {
  orgSlug: string;
  email: string;
  password: string;
  databaseUrl: string;
  projects: string[];
  issues: number;
  events: number;
  seededAt: string;
  /** Since the demo had traces, logs, monitors, releases and feedback (issue 22). */
  spans?: number;
  traces?: number;
  logs?: number;
  monitors?: string[];
  releases?: number;
  feedback?: number;
  /** The trace of 10,000 spans, and one of (about) 10. */
  bigTrace?: string;
  smallTrace?: string;
  smallTraceSpans?: number;
  /** Words in about one in 20,000 log lines and in about a third of them. */
  rareWord?: string;
  commonWord?: string;
  seedSeconds?: number;
}

export const SEED_INFO_FILE = path.join(DEMO_DATA_DIR, "seed.json");

export function readSeedInfo(): SeedInfo {
  if (!fs.existsSync(SEED_INFO_FILE))
    throw new Error(`${SEED_INFO_FILE} is missing: run \`npm run seed:demo\` first`);
  return JSON.parse(fs.readFileSync(SEED_INFO_FILE, "utf8")) as SeedInfo;
}

export function requireNextBuild(): void {
  if (!fs.existsSync(path.resolve(".next/BUILD_ID")))
    throw new Error("the Next.js production build is missing: run `npm run build`");
}

/** A signed-in HTTP client, through the sign-in form's server action like a browser. */
export async function signedIn(baseUrl: string, email: string, password: string): Promise<Client> {
  const client = new Client(baseUrl);
  const res = await client.action("/sign-in", actionId("app/(auth)/sign-in/actions.ts", "signIn"), {
    email,
    password,
  });
  if (!client.cookies.has("faultline.session_token"))
    throw new Error(`sign-in failed: ${res.status} ${res.body.slice(0, 200)}`);
  return client;
}

export async function setUpOwner(baseUrl: string): Promise<void> {
  const client = new Client(baseUrl);
  const res = await client.action(
    "/setup",
    actionId("app/(auth)/setup/actions.ts", "setUp"),
    DEMO_OWNER,
  );
  if (res.status !== 200 || !client.cookies.has("faultline.session_token"))
    throw new Error(`setup failed (already set up? remove ${DEMO_DATA_DIR}): ${res.status}`);
}
