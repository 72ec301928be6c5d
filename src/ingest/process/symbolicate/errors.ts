/**
 * Why a JavaScript frame stayed minified, as Sentry names it in an event's `errors`; the
 * event page says it in words (components/issue/ingest-notes.tsx).
 */
export const SOURCEMAP_ERRORS = [
  "js_no_source",
  "js_invalid_source_map",
  "js_too_large",
  "js_fetch_error",
  "js_invalid_source_map_location",
  "js_missing_source_content",
] as const;

export type SourcemapError = (typeof SOURCEMAP_ERRORS)[number];

export const SOURCEMAP_ERROR_TEXT: Record<SourcemapError, string> = {
  js_no_source: "no source map was found for this frame's file",
  js_invalid_source_map: "the source map could not be read",
  js_too_large: "the source map is too large to use",
  js_fetch_error: "the uploaded files could not be read",
  js_invalid_source_map_location: "the frame's line and column are not in its source map",
  js_missing_source_content: "the source map has no source content for this file",
};
