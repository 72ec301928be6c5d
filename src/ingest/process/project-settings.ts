import {
  compileFilters,
  DEFAULT_FILTER_SETTINGS,
  type FilterSettings,
  type InboundFilters,
} from "./filters/inbound-filters";
import {
  compileScrubber,
  DEFAULT_SCRUB_SETTINGS,
  type Scrubber,
  type ScrubSettings,
} from "./scrub/config";

/**
 * What the process stage needs of a project's settings (src/projects/data-settings.ts):
 * plain data, so it crosses to processor threads; compiled once per distinct value in each
 * thread. A project the worker has no settings for is processed with the defaults
 * (scrubbing on, Sentry's default filters), never with less.
 */
export interface IngestSettings {
  scrub: ScrubSettings;
  filters: FilterSettings;
}

export const DEFAULT_INGEST_SETTINGS: IngestSettings = {
  scrub: DEFAULT_SCRUB_SETTINGS,
  filters: DEFAULT_FILTER_SETTINGS,
};

export type SettingsByProject = ReadonlyMap<number, IngestSettings>;

export interface ProjectProcessing {
  scrubber: Scrubber | null;
  filters: InboundFilters | null;
}

const compiled = new Map<string, ProjectProcessing>();

function compile(settings: IngestSettings): ProjectProcessing {
  // Keyed by value: a processor thread receives the settings cloned with every batch.
  const key = JSON.stringify(settings);
  let found = compiled.get(key);
  if (!found) {
    found = {
      scrubber: compileScrubber(settings.scrub),
      filters: compileFilters(settings.filters),
    };
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(key, found);
  }
  return found;
}

const byObject = new WeakMap<IngestSettings, ProjectProcessing>();

/** The compiled processing of a project, from the batch's settings (or the defaults). */
export function processingFor(
  projectId: number,
  settings: SettingsByProject | undefined,
): ProjectProcessing {
  const s = settings?.get(projectId) ?? DEFAULT_INGEST_SETTINGS;
  let found = byObject.get(s);
  if (!found) {
    found = compile(s);
    byObject.set(s, found);
  }
  return found;
}

/** Where a project's changed settings are announced to this process's workers. */
export const SETTINGS_CHANNEL = "faultline:project-settings";

/** Makes this process's workers see a project's new settings at once. */
export function announceProjectSettings(projectId: number): void {
  const channel = new BroadcastChannel(SETTINGS_CHANNEL);
  channel.postMessage(projectId);
  channel.close();
}
