import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema";
import { ARTIFACTS_CHANNEL } from "../../../sourcemaps/lookup";
import { frameEnvelope } from "../../accept/frame";
import type { QueuedEnvelope } from "../../queue/queue";
import type { MetaTree } from "../scrub/meta";
import type { ArtifactLookup } from "./artifacts";
import { MapResolver } from "./resolve-map";
import { symbolicateEvent } from "./symbolicate-event";

/**
 * The symbolicate stage: runs in the worker thread before the rest of the process stage,
 * because it reads uploaded source maps (asynchronously, from the database or the data
 * directory) and the process stage is pure CPU work spread over processor threads. An event
 * with JavaScript frames is parsed, its frames mapped (symbolicate-event.ts) and its bytes
 * replaced in the envelope; the envelope is marked `symbolicated`, so prepare-event.ts keeps
 * the `_meta` written here (the frames' errors) instead of discarding it as the sender's.
 * Every other envelope passes untouched, at the cost of one byte search.
 */
export interface SymbolicateStats {
  events: number;
  mapped: number;
  failed: number;
}

/**
 * How long the worker trusts "this project has no uploaded files" when nothing told it
 * otherwise: a bundle assembled in this process announces itself at once (ARTIFACTS_CHANNEL),
 * one assembled by another process is seen within this.
 */
const HAS_FILES_TTL_MS = 5_000;

export class Symbolicator {
  readonly resolver: MapResolver;
  readonly stats: SymbolicateStats = { events: 0, mapped: 0, failed: 0 };
  /**
   * Whether each project has uploaded files. Most have none, and for them an event that
   * names no debug IDs is not parsed at all: parsing every JavaScript event to find nothing
   * to map cost the errors bench ~45 µs of processing per event (8.2k against 13.4k
   * events/s processed).
   */
  private readonly hasFiles = new Map<number, { has: boolean; expires: number }>();
  private channel: BroadcastChannel | undefined;
  private readonly lookup: ArtifactLookup;

  /**
   * `lookupFor(reads)` gives the artifact lookup that reads through a batch's executor (see
   * src/sourcemaps/lookup.ts); without it, `lookup` serves every batch.
   */
  constructor(
    lookup: ArtifactLookup,
    cacheBytes: number,
    private readonly lookupFor?: (reads: Kysely<Database>) => ArtifactLookup,
  ) {
    this.resolver = new MapResolver(lookup, cacheBytes);
    this.lookup = lookup;
  }

  /** Starts listening for bundles assembled in this process (see ARTIFACTS_CHANNEL). */
  listen(): this {
    this.channel = new BroadcastChannel(ARTIFACTS_CHANNEL);
    this.channel.onmessage = (message) => {
      const id = (message as MessageEvent).data;
      if (typeof id === "number") this.hasFiles.delete(id);
    };
    (this.channel as unknown as { unref(): void }).unref();
    return this;
  }

  close(): void {
    this.channel?.close();
  }

  /** The projects among these that have uploaded files, from memory when it is fresh. */
  private async projectsWithFiles(
    envelopes: QueuedEnvelope[],
    lookup: ArtifactLookup,
  ): Promise<Set<number>> {
    const now = Date.now();
    const out = new Set<number>();
    for (const projectId of new Set(envelopes.map((e) => e.projectId))) {
      let known = this.hasFiles.get(projectId);
      if (!known || known.expires <= now) {
        known = { has: await lookup.hasFiles(projectId), expires: now + HAS_FILES_TTL_MS };
        this.hasFiles.set(projectId, known);
      }
      if (known.has) out.add(projectId);
    }
    return out;
  }

  async symbolicateEnvelopes(envelopes: QueuedEnvelope[], reads?: Kysely<Database>): Promise<void> {
    const lookup = reads && this.lookupFor ? this.lookupFor(reads) : this.lookup;
    const resolver = lookup === this.lookup ? this.resolver : this.resolver.withLookup(lookup);
    const withFiles = await this.projectsWithFiles(envelopes, lookup);
    // An event that names its bundles' debug IDs is looked at anyway, so a project that
    // forgot to upload is told why its frames stayed minified (js_no_source).
    const wanted = envelopes.filter(
      (e) => withFiles.has(e.projectId) || e.body.includes('"debug_meta"'),
    );
    if (wanted.length === 0) return;
    await Promise.all(
      wanted.map((envelope) =>
        this.symbolicateEnvelope(envelope, resolver).catch((err) => {
          // A bug here must not wedge the queue: the event goes on as sent.
          console.error(`[symbolicate] envelope ${envelope.id} failed:`, err);
        }),
      ),
    );
  }

  private async symbolicateEnvelope(
    envelope: QueuedEnvelope,
    resolver: MapResolver,
  ): Promise<void> {
    if (envelope.kind === "store") {
      const out = await this.symbolicatePayload(envelope.body, envelope.projectId, resolver);
      if (out) {
        envelope.body = out;
        envelope.symbolicated = true;
      }
      return;
    }
    if (envelope.kind !== "envelope" || !mayHaveJsFrames(envelope.body)) return;
    const framed = frameEnvelope(envelope.body);
    if (!framed.ok) return;
    const items = framed.value.items;
    const events = items.filter((it) => it.header.type === "event");
    const results = await Promise.all(
      events.map((it) => this.symbolicatePayload(it.payload, envelope.projectId, resolver)),
    );
    if (!results.some((r) => r !== undefined)) return;
    const body = envelope.body;
    const parts: Buffer[] = [body.subarray(0, items[0]?.start ?? body.length)];
    items.forEach((item, i) => {
      const end = items[i + 1]?.start ?? body.length;
      const k = events.indexOf(item);
      let payload = k === -1 ? undefined : results[k];
      // The whole envelope's `_meta` is now Faultline's: a sender's goes, as prepare-event.ts
      // would have done.
      if (k !== -1 && payload === undefined && item.payload.includes('"_meta"'))
        payload = withoutMeta(item.payload);
      if (payload === undefined) {
        parts.push(body.subarray(item.start, end));
        return;
      }
      const header = { ...item.header, length: payload.length };
      parts.push(Buffer.from(`${JSON.stringify(header)}\n`), payload, Buffer.from("\n"));
    });
    envelope.body = Buffer.concat(parts);
    envelope.symbolicated = true;
  }

  /** The event's new bytes when a frame changed or failed to map; else undefined. */
  private async symbolicatePayload(
    payload: Buffer,
    projectId: number,
    resolver: MapResolver,
  ): Promise<Buffer | undefined> {
    if (!mayHaveJsFrames(payload)) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(payload.toString("utf8"));
    } catch {
      return undefined;
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
    const event = raw as Record<string, unknown>;
    if (event.type === "transaction") return undefined;
    const meta: MetaTree = {};
    const result = await symbolicateEvent(event, projectId, resolver, meta);
    if (result.mapped === 0 && result.failed === 0) return undefined;
    this.stats.events++;
    this.stats.mapped += result.mapped;
    this.stats.failed += result.failed;
    delete event._meta;
    if (Object.keys(meta).length > 0) event._meta = meta;
    return Buffer.from(JSON.stringify(event));
  }
}

/** JavaScript frames carry a column; events without `"colno"` are not parsed here. */
function mayHaveJsFrames(payload: Buffer): boolean {
  return payload.includes('"colno"');
}

function withoutMeta(payload: Buffer): Buffer | undefined {
  try {
    const raw = JSON.parse(payload.toString("utf8"));
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
    delete raw._meta;
    return Buffer.from(JSON.stringify(raw));
  } catch {
    return undefined;
  }
}
