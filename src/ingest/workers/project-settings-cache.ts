import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { parseIngestSettings } from "../../projects/data-settings";
import { type IngestSettings, SETTINGS_CHANNEL } from "../process/project-settings";
import type { QueuedEnvelope } from "../queue/queue";

/**
 * Each project's scrubbing and filter settings for the worker, from memory. Entries expire
 * after `ttlMs`, so another process's change arrives within that; a change made in this
 * process (the web thread, in role all) reaches every thread at once over a BroadcastChannel,
 * as key changes do (accept/auth.ts). A batch whose projects are all cached gets its settings
 * without a promise.
 */
export class ProjectSettingsCache {
  private entries = new Map<number, { settings: IngestSettings; expires: number }>();
  private channel: BroadcastChannel | undefined;

  constructor(private readonly ttlMs = 10_000) {}

  /** Starts listening for changes made in this process. */
  listen(): this {
    this.channel = new BroadcastChannel(SETTINGS_CHANNEL);
    this.channel.onmessage = (message) => {
      const id = (message as MessageEvent).data;
      if (typeof id === "number") this.entries.delete(id);
    };
    (this.channel as unknown as { unref(): void }).unref();
    return this;
  }

  close(): void {
    this.channel?.close();
  }

  /** `reads` is the batch's executor (queue.ts `processBatch`), not a pooled connection. */
  forBatch(
    envelopes: readonly QueuedEnvelope[],
    reads: Kysely<Database>,
  ): Map<number, IngestSettings> | Promise<Map<number, IngestSettings>> {
    const now = Date.now();
    const out = new Map<number, IngestSettings>();
    const missing: number[] = [];
    for (const { projectId } of envelopes) {
      if (out.has(projectId)) continue;
      const hit = this.entries.get(projectId);
      if (hit && hit.expires > now) out.set(projectId, hit.settings);
      else if (!missing.includes(projectId)) missing.push(projectId);
    }
    if (missing.length === 0) return out;
    return this.load(missing, reads).then((loaded) => {
      for (const [id, settings] of loaded) out.set(id, settings);
      return out;
    });
  }

  private async load(ids: number[], reads: Kysely<Database>): Promise<Map<number, IngestSettings>> {
    const rows = await reads
      .selectFrom("projects")
      .select([
        "id",
        "scrub_data",
        "scrub_defaults",
        "scrub_ip_addresses",
        "sensitive_fields",
        "safe_fields",
        "inbound_filters",
      ])
      .where("id", "in", ids)
      .execute();
    const expires = Date.now() + this.ttlMs;
    const out = new Map<number, IngestSettings>();
    for (const row of rows) {
      const settings = parseIngestSettings(row);
      out.set(Number(row.id), settings);
      this.entries.set(Number(row.id), { settings, expires });
    }
    return out;
  }
}
