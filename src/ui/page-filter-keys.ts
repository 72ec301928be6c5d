/**
 * The URL parameters of the page selection, apart from its zod parser so the sidebar (a
 * client component) can carry them without shipping zod to the browser.
 */
export const PAGE_FILTER_KEYS = ["project", "environment", "range", "start", "end"] as const;

/** Only the selection's keys of a URL's parameters (for carrying them to another section). */
export function carriedFilterQuery(params: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const key of PAGE_FILTER_KEYS) for (const v of params.getAll(key)) if (v) out.append(key, v);
  return out.toString();
}
