import pkg from "../package.json";

/**
 * The version of this build, from package.json: the one source of truth, bundled in by esbuild
 * (the server) and Next (the pages), so the log, `GET /api/0/` and the sidebar cannot
 * disagree. `npm run release -- <version>` (scripts/release.mjs) is what changes it.
 */
export const FAULTLINE_VERSION: string = pkg.version;
