import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { repoRoot } from "./root";

/** Envelopes captured from the real SDKs by scripts/capture-fixtures.mjs. */
export const FIXTURE_DIR = path.join(repoRoot(), "tests/fixtures/envelopes");

export interface Fixture {
  name: string;
  /** The bytes exactly as the SDK sent them (possibly compressed). */
  raw: Buffer;
  /** The envelope after Content-Encoding is undone. */
  body: Buffer;
  meta: {
    sdk: string;
    sdkVersion?: string;
    path: string;
    query?: string;
    headers: Record<string, string | null>;
    itemTypes: string[];
    contentEncoding?: string | null;
    publicKey: string;
  };
}

function decode(raw: Buffer, encoding: string): Buffer {
  if (encoding === "gzip") return zlib.gunzipSync(raw);
  if (encoding === "deflate") return zlib.inflateSync(raw);
  if (encoding === "br") return zlib.brotliDecompressSync(raw);
  return raw;
}

export function loadFixtures(filter?: (f: Fixture) => boolean): Fixture[] {
  const names = fs
    .readdirSync(FIXTURE_DIR)
    .filter((n) => n.endsWith(".envelope"))
    .sort();
  const all = names.map((file) => {
    const name = file.replace(/\.envelope$/, "");
    const raw = fs.readFileSync(path.join(FIXTURE_DIR, file));
    const meta = JSON.parse(
      fs.readFileSync(path.join(FIXTURE_DIR, `${name}.json`), "utf8"),
    ) as Fixture["meta"];
    const encoding = (meta.contentEncoding ?? meta.headers["content-encoding"] ?? "").toLowerCase();
    return { name, raw, body: decode(raw, encoding), meta };
  });
  return filter ? all.filter(filter) : all;
}

export function fixture(name: string): Fixture {
  const found = loadFixtures((f) => f.name === name)[0];
  if (!found) throw new Error(`no fixture named ${name}`);
  return found;
}
