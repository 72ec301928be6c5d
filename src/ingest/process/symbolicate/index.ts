export type { ArtifactLookup } from "./artifacts";
export { SOURCEMAP_ERROR_TEXT, SOURCEMAP_ERRORS, type SourcemapError } from "./errors";
export { Symbolicator } from "./symbolicate-envelopes";
