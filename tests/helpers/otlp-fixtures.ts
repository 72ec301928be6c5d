import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { repoRoot } from "./root";

/** OTLP/HTTP requests captured from the real OpenTelemetry exporters (scripts/capture-otlp-fixtures.mjs). */
export const OTLP_FIXTURE_DIR = path.join(repoRoot(), "tests/fixtures/otlp");

export interface OtlpFixture {
  /** The bytes as the exporter sent them (gzip for the protobuf ones). */
  raw: Buffer;
  /** With Content-Encoding undone: what the queue holds. */
  body: Buffer;
  meta: { path: string; headers: Record<string, string | null> };
}

export function otlpFixture(name: string): OtlpFixture {
  const raw = fs.readFileSync(path.join(OTLP_FIXTURE_DIR, `${name}.otlp`));
  const meta = JSON.parse(fs.readFileSync(path.join(OTLP_FIXTURE_DIR, `${name}.json`), "utf8"));
  const body = meta.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(raw) : raw;
  return { raw, body, meta };
}
