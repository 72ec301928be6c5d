/**
 * What symbolication needs of the uploaded artifacts (src/sourcemaps/lookup.ts implements
 * it over the stored bundles): a project's source map by debug ID, and a release's file by
 * URL for events without debug IDs. Declared here so the stage can be tested without a
 * database.
 */
export interface ArtifactLookup {
  sourceMapByDebugId(projectId: number, debugId: string): Promise<Buffer | null>;
  fileByUrl(
    projectId: number,
    release: string,
    dist: string | null,
    url: string,
  ): Promise<{ type: string; content: Buffer; headers: Record<string, string> } | null>;
}
