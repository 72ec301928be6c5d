import type { NormalizedEvent } from "../../events/types";

/**
 * What free-text search finds an issue by (src/issues/search/): the title and culprit, the
 * exception types and values (and a message event's message), and the function, module and
 * file names of in-app frames. Computed in the process stage, lowercase and bounded, so the
 * store stage only compares strings (src/ingest/store/issue-search.ts).
 *
 * Events of one fingerprint repeat nearly all of these (the frames are what grouped them), and
 * a batch holds its events until they are stored, long enough for V8 to promote what they
 * keep. So within a batch each fingerprint's strings are looked at once: an event carries
 * only the terms no earlier event of its fingerprint in the batch had (mostly none: the
 * shared EMPTY list), and a repeated string costs one Set lookup, not a lowercase copy.
 */
export const MAX_TERM_LENGTH = 200;
const MAX_TERMS_PER_EVENT = 40;
/** Distinct strings remembered per fingerprint and batch; past it, later ones still count. */
const MAX_SEEN = 2000;
const UNUSUAL_SPACE = /[^\S ]| {2}|^ | $/;
const EMPTY: readonly string[] = Object.freeze([]);

/** Strings seen per batch (any object that lives as long as the batch) and fingerprint. */
const seenInBatch = new WeakMap<object, Map<string, Set<string>>>();

export function searchTerms(
  event: NormalizedEvent,
  grouping: { hash: string; title: string; culprit: string | null },
  batch: object,
): readonly string[] {
  let byHash = seenInBatch.get(batch);
  if (!byHash) {
    byHash = new Map();
    seenInBatch.set(batch, byHash);
  }
  let seen = byHash.get(grouping.hash);
  if (!seen) {
    seen = new Set();
    byHash.set(grouping.hash, seen);
  }
  const known = seen;
  let out: string[] | undefined;
  const add = (text: string | undefined | null) => {
    if (!text || known.has(text) || (out?.length ?? 0) >= MAX_TERMS_PER_EVENT) return;
    if (known.size < MAX_SEEN) known.add(text);
    let term = text.length > MAX_TERM_LENGTH ? text.slice(0, MAX_TERM_LENGTH) : text;
    // Newlines separate terms in the index: a phrase never matches across two of them. Most
    // terms have no run of spaces or other whitespace; the test is cheaper than the rewrite.
    if (UNUSUAL_SPACE.test(term)) term = term.replace(/\s+/g, " ").trim();
    term = term.toLowerCase();
    if (!term) return;
    out ??= [];
    out.push(term);
  };
  add(grouping.title);
  add(grouping.culprit);
  const chain = event.exception?.values ?? [];
  // The top exception (the last) first, so the cap drops causes rather than the error itself.
  for (let i = chain.length - 1; i >= 0; i--) {
    add(chain[i]?.type);
    add(chain[i]?.value);
  }
  if (chain.length === 0) add(event.message);
  const stacks = chain.map((e) => e.stacktrace?.frames ?? []);
  if (event.stacktrace) stacks.push(event.stacktrace.frames);
  for (const frames of stacks) {
    // Innermost first: the frames nearest the error matter most when the cap bites.
    for (let i = frames.length - 1; i >= 0; i--) {
      const f = frames[i];
      if (f?.in_app !== true) continue;
      add(f.function);
      add(f.module);
      add(f.filename ?? f.abs_path);
    }
  }
  return out ?? EMPTY;
}
