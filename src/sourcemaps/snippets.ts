/**
 * Copy-ready setup for uploading source maps to this Faultline: sentry-cli and the bundler
 * plugins (which drive the same CLI), with the URL, organization and project filled in. The
 * token stays an environment variable: it is shown once, when created.
 */
export interface SourcemapSnippet {
  key: string;
  title: string;
  code: string;
}

export function sourcemapSnippets(url: string, org: string, project: string): SourcemapSnippet[] {
  const q = JSON.stringify;
  return [
    {
      key: "cli",
      title: "sentry-cli (any build)",
      code: [
        `export SENTRY_URL=${url}`,
        `export SENTRY_ORG=${org}`,
        `export SENTRY_PROJECT=${project}`,
        "export SENTRY_AUTH_TOKEN=sntrys_…   # an organization auth token",
        "",
        "npx @sentry/cli sourcemaps inject ./dist",
        "npx @sentry/cli sourcemaps upload --wait ./dist",
      ].join("\n"),
    },
    {
      key: "nextjs",
      title: "Next.js (next.config.mjs)",
      code: [
        'import { withSentryConfig } from "@sentry/nextjs";',
        "",
        "export default withSentryConfig(nextConfig, {",
        `  sentryUrl: ${q(url)},`,
        `  org: ${q(org)},`,
        `  project: ${q(project)},`,
        "  authToken: process.env.SENTRY_AUTH_TOKEN,",
        "});",
      ].join("\n"),
    },
    {
      key: "vite",
      title: "Vite (vite.config.js)",
      code: [
        'import { defineConfig } from "vite";',
        'import { sentryVitePlugin } from "@sentry/vite-plugin";',
        "",
        "export default defineConfig({",
        "  build: { sourcemap: true },",
        "  plugins: [",
        "    sentryVitePlugin({",
        `      url: ${q(url)},`,
        `      org: ${q(org)},`,
        `      project: ${q(project)},`,
        "      authToken: process.env.SENTRY_AUTH_TOKEN,",
        "    }),",
        "  ],",
        "});",
      ].join("\n"),
    },
    {
      key: "webpack",
      title: "webpack (webpack.config.js)",
      code: [
        'const { sentryWebpackPlugin } = require("@sentry/webpack-plugin");',
        "",
        "module.exports = {",
        '  devtool: "source-map",',
        "  plugins: [",
        "    sentryWebpackPlugin({",
        `      url: ${q(url)},`,
        `      org: ${q(org)},`,
        `      project: ${q(project)},`,
        "      authToken: process.env.SENTRY_AUTH_TOKEN,",
        "    }),",
        "  ],",
        "};",
      ].join("\n"),
    },
  ];
}
