import type { NormalizedEvent } from "../../events/types";

/**
 * What free-text search finds an issue by (src/issues/search/): the title and culprit, the
 * exception types and values (and a message event's message), and the function, module and
 * file names of in-app frames. Computed in the process stage, lowercase and bounded, so the
 * store stage only compares strings (src/ingest/store/issue-search.ts).
 */
export const MAX_TERM_LENGTH = 200;
const MAX_TERMS_PER_EVENT = 40;
const UNUSUAL_SPACE = /[^\S ]|  |^ | $/;

export function searchTerms(
  event: NormalizedEvent,
  grouping: { title: string; culprit: string | null },
): string[] {
  const terms = new Set<string>();
  const add = (text: string | undefined | null) => {
    if (!text || terms.size >= MAX_TERMS_PER_EVENT) return;
    let term = text.length > MAX_TERM_LENGTH ? text.slice(0, MAX_TERM_LENGTH) : text;
    // Newlines separate terms in the index: a phrase never matches across two of them. Most
    // terms have no run of spaces or other whitespace; the test is cheaper than the rewrite.
    if (UNUSUAL_SPACE.test(term)) term = term.replace(/\s+/g, " ").trim();
    term = term.toLowerCase();
    if (term) terms.add(term);
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
  return [...terms];
}
