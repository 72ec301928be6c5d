import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { zipSync } from "fflate";

/**
 * Artifact bundles made by hand, good and bad, in sentry-cli's format: `SYSB`, version 2
 * (u32 LE), then a zip whose offsets count from the file's start. fflate writes offsets from
 * the zip's own start, so they are moved by the header's 8 bytes here.
 */
export function sysb(zip: Uint8Array): Buffer {
  const out = Buffer.alloc(8 + zip.byteLength);
  out.write("SYSB", 0, "latin1");
  out.writeUInt32LE(2, 4);
  Buffer.from(zip).copy(out, 8);
  const eocd = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries = out.readUInt16LE(eocd + 10);
  let cd = out.readUInt32LE(eocd + 16) + 8;
  out.writeUInt32LE(cd, eocd + 16);
  for (let i = 0; i < entries; i++) {
    out.writeUInt32LE(out.readUInt32LE(cd + 42) + 8, cd + 42);
    cd += 46 + out.readUInt16LE(cd + 28) + out.readUInt16LE(cd + 30) + out.readUInt16LE(cd + 32);
  }
  return out;
}

export const DEBUG_ID = "a7c8e4f1-1d2b-4c3a-9e8f-0123456789ab";

export function manifest(files: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return new TextEncoder().encode(JSON.stringify({ files, ...extra }));
}

const enc = (s: string) => new TextEncoder().encode(s);

/** A valid bundle: one minified file and its map, by debug ID. */
export function goodBundle(debugId = DEBUG_ID): Buffer {
  return sysb(
    zipSync({
      "manifest.json": manifest({
        "_/_/main.js": {
          url: "~/main.js",
          type: "minified_source",
          headers: { "debug-id": debugId, sourcemap: "main.js.map" },
        },
        "_/_/main.js.map": {
          url: "~/main.js.map",
          type: "source_map",
          headers: { "debug-id": debugId },
        },
      }),
      "_/_/main.js": enc("function a(){throw new Error('x')}a();"),
      "_/_/main.js.map": enc('{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}'),
    }),
  );
}

export const sha1 = (b: Uint8Array) => createHash("sha1").update(b).digest("hex");

/** Posts the bytes as one gzip chunk, then polls assemble until it settles; every answer kept. */
export async function upload(
  url: string,
  token: string,
  bytes: Buffer,
  projects = ["default"],
  org = "default",
): Promise<{ answers: Record<string, unknown>[]; final: Record<string, unknown> }> {
  const checksum = sha1(bytes);
  const assemble = async () => {
    const res = await fetch(`${url}/api/0/organizations/${org}/artifactbundle/assemble/`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ checksum, chunks: [checksum], projects }),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const answers = [await assemble()];
  const form = new FormData();
  form.append("file_gzip", new Blob([new Uint8Array(gzipSync(bytes))]), checksum);
  const res = await fetch(`${url}/api/0/organizations/${org}/chunk-upload/`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (res.status !== 200) throw new Error(`chunk upload: ${res.status} ${await res.text()}`);
  const started = Date.now();
  for (;;) {
    const answer = await assemble();
    answers.push(answer);
    if (answer.state === "ok" || answer.state === "error") return { answers, final: answer };
    if (Date.now() - started > 30_000)
      throw new Error(`assembly did not settle: ${JSON.stringify(answer)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
