import { knownPlatform, type Platform } from "./schemas";

/**
 * Copy-ready SDK setup for a project's DSN, one per platform an SDK exists for. The DSN is
 * written as a JSON string literal, which is a valid string in JavaScript, TypeScript and
 * Python alike, so no DSN can break out of the quotes.
 */
export type SnippetPlatform = Exclude<Platform, "other">;
export const SNIPPET_PLATFORMS: readonly SnippetPlatform[] = [
  "javascript-browser",
  "node",
  "nextjs",
  "python",
];

export interface SetupSnippet {
  platform: SnippetPlatform;
  title: string;
  install: string;
  /** `label` names the file for the copy button ("Copy Python setup"). */
  files: { name: string; label: string; code: string }[];
}

export function setupSnippet(platform: SnippetPlatform, dsn: string): SetupSnippet {
  const d = JSON.stringify(dsn);
  switch (platform) {
    case "javascript-browser":
      return {
        platform,
        title: "Browser JavaScript",
        install: "npm install @sentry/browser",
        files: [
          {
            name: "main.js (before your app's code)",
            label: "setup",
            code: `import * as Sentry from "@sentry/browser";

Sentry.init({
  dsn: ${d},
  integrations: [Sentry.browserTracingIntegration()],
  tracesSampleRate: 0.1,
});`,
          },
        ],
      };
    case "node":
      return {
        platform,
        title: "Node.js",
        install: "npm install @sentry/node",
        files: [
          {
            name: "instrument.mjs (load first: node --import ./instrument.mjs app.mjs)",
            label: "instrument.mjs",
            code: `import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: ${d},
  tracesSampleRate: 0.1,
});`,
          },
        ],
      };
    case "nextjs":
      return {
        platform,
        title: "Next.js",
        install: "npm install @sentry/nextjs",
        files: [
          {
            name: "instrumentation-client.ts",
            label: "instrumentation-client.ts",
            code: `import * as Sentry from "@sentry/nextjs";

Sentry.init({
  dsn: ${d},
  tracesSampleRate: 0.1,
});

export const onRouterTransitionStart = Sentry.captureRouterTransitionStart;`,
          },
          {
            name: "instrumentation.ts",
            label: "instrumentation.ts",
            code: `import * as Sentry from "@sentry/nextjs";

export function register() {
  // The same init serves the Node.js and the Edge runtime.
  Sentry.init({
    dsn: ${d},
    tracesSampleRate: 0.1,
  });
}

export const onRequestError = Sentry.captureRequestError;`,
          },
        ],
      };
    case "python":
      return {
        platform,
        title: "Python",
        install: "pip install sentry-sdk",
        files: [
          {
            name: "at the start of your program",
            label: "setup",
            code: `import sentry_sdk

sentry_sdk.init(
    dsn=${d},
    traces_sample_rate=0.1,
)`,
          },
        ],
      };
  }
}

/** The snippets to teach for a project: its own platform's, or all when it has none of them. */
export function snippetPlatformsFor(platform: string | null): SnippetPlatform[] {
  const own = SNIPPET_PLATFORMS.find((p) => p === knownPlatform(platform));
  return own ? [own] : [...SNIPPET_PLATFORMS];
}

/** Every platform, the project's own first. */
export function allSnippetPlatforms(platform: string | null): SnippetPlatform[] {
  const own = snippetPlatformsFor(platform);
  if (own.length !== 1) return own;
  return [...own, ...SNIPPET_PLATFORMS.filter((p) => !own.includes(p))];
}
