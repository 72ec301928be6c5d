/**
 * What symbolication needs of the uploaded artifacts: a project's source map by debug ID,
 * and a release's file by URL for events without debug IDs. Implemented over the stored
 * bundles by src/sourcemaps/lookup.ts; the stage takes it as a parameter, so its tests
 * need no database.
 */
export type { ArtifactLookup } from "../../../sourcemaps/lookup";
