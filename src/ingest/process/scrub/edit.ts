import type { MetaTree } from "./meta";

/**
 * The changes ingest makes to an event before it is stored (scrubbing, clock correction):
 * made in place on the parsed event, with the top-level members they touched, so that
 * serialize.ts rewrites only those members of the SDK's bytes.
 */
export interface EventEdit {
  changed: Set<string>;
  /** The whole event must be written again (a change member splicing cannot express). */
  rewrite: boolean;
  meta: MetaTree;
  /** Where the changed members go in the SDK's text, once worked out (scrub-event.ts). */
  splices?: {
    members: number;
    list: { start: number; end: number; json: string }[];
  };
}

export function newEdit(): EventEdit {
  return { changed: new Set(), rewrite: false, meta: {} };
}

export function hasChanges(edit: EventEdit): boolean {
  return edit.rewrite || edit.changed.size > 0;
}
