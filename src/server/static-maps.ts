/**
 * The build writes source maps beside Faultline's own browser chunks (next.config.mjs,
 * `productionBrowserSourceMaps`), and Next would serve them as static files. They are read by
 * the symbolicator from disk (src/sourcemaps/self-bundle.ts); server.ts answers 404 to any
 * request for one, so the original sources never reach a browser.
 */
export function isBuiltSourceMap(url: string): boolean {
  let pathname = url.split(/[?#]/, 1)[0] ?? "";
  try {
    pathname = decodeURIComponent(pathname);
  } catch {
    // a malformed escape is no source map path; Next answers it
  }
  pathname = pathname.replace(/\/+$/, "").toLowerCase();
  return pathname.includes("/_next/") && pathname.endsWith(".map");
}
