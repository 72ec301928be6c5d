import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { frameEnvelope } from "../../src/ingest/accept/frame";
import { testDialects } from "../helpers/databases";
import { buildEnvelope } from "../helpers/envelopes";
import { fixture } from "../helpers/fixtures";
import { openPipeline, type Pipeline } from "../helpers/pipeline";

/**
 * Spans and logs are stored as rows, not as the SDK's bytes: their attributes are scrubbed by
 * key and log bodies by the value patterns, before the rows are written (issue 24). The real
 * SDK's span and log containers, with secrets added.
 */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's payloads, edited freely below
type Loose = any;

function withSecrets(name: string, edit: (payload: Loose) => void): Buffer {
  const framed = frameEnvelope(fixture(name).body);
  if (!framed.ok) throw new Error(`fixture ${name}`);
  const items = framed.value.items.map((i) => {
    const { type, length: _length, ...headers } = i.header as Record<string, unknown>;
    const payload = JSON.parse(i.payload.toString());
    edit(payload);
    return { type: String(type), payload, headers };
  });
  return buildEnvelope(items, { ...framed.value.header, sent_at: new Date().toISOString() });
}

describe.each(await testDialects())("span and log rows on $name", ({ create }) => {
  let p: Pipeline;
  beforeEach(async () => {
    p = await openPipeline(create);
  });
  afterEach(async () => {
    await p.close();
  });

  it("stores span data and log attributes without secrets, and log bodies without cards", async () => {
    await p.send(
      withSecrets("node-transaction-1", (c) => {
        c.items[0].attributes["http.request.header.authorization"] = {
          value: "Bearer span-secret-123456",
          type: "string",
        };
        c.items[0].attributes["db.connection_string"] = {
          value: "postgres://app:db-pass-987@db.internal/shop",
          type: "string",
        };
      }),
    );
    await p.send(
      withSecrets("node-logs-1", (c) => {
        c.items[0].attributes["session.token"] = { value: "log-secret-abcdef", type: "string" };
        c.items[0].body = "charged card 5555 5555 5555 4444 for order 17";
      }),
    );
    await p.worker.drain();
    const spans = JSON.stringify(await p.db.kysely.selectFrom("spans").select(["data"]).execute());
    const logs = JSON.stringify(
      await p.db.kysely.selectFrom("log_items").select(["body", "attributes"]).execute(),
    );
    for (const secret of ["span-secret-123456", "db-pass-987"]) expect(spans).not.toContain(secret);
    for (const secret of ["log-secret-abcdef", "5555 5555 5555 4444"])
      expect(logs).not.toContain(secret);
    expect(spans).toContain("[Filtered]");
    expect(logs).toContain("charged card [Filtered] for order 17");
    // What is not secret stays.
    expect(logs).toContain("jane.doe@example.com");
    expect(spans).toContain("db.query");
  });
});
