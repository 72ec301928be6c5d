import { isObjectLike } from "../../accept/otlp/fields";
import { keyValues } from "../../accept/otlp/values";
import { truncate } from "../lenient";

/**
 * What a span or log record takes from its resource and scope, as Sentry's conversion of
 * OTLP does: `service.name` (a tag), `deployment.environment.name` (or the older
 * `deployment.environment`) as the environment, `service.version` as the release; the
 * other resource attributes are kept under `resource.` on segments and logs.
 */
export interface ResourceInfo {
  serviceName: string | null;
  release: string | null;
  environment: string | null;
  /** Sentry's platform name for the SDK's language (telemetry.sdk.language). */
  platform: string;
  /** All resource attributes, prefixed `resource.`. */
  prefixed: Record<string, unknown>;
}

const PLATFORMS: Record<string, string> = {
  nodejs: "node",
  webjs: "javascript",
  python: "python",
  java: "java",
  go: "go",
  dotnet: "csharp",
  ruby: "ruby",
  php: "php",
  rust: "rust",
  swift: "cocoa",
  erlang: "elixir",
  cpp: "native",
};

function textOf(value: unknown, max: number): string | null {
  if (typeof value === "string" && value !== "") return truncate(value, max);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

export function resourceInfo(attributes: unknown): ResourceInfo {
  const plain = keyValues(attributes);
  const prefixed: Record<string, unknown> = {};
  for (const key in plain) prefixed[`resource.${key}`] = plain[key];
  const language = textOf(plain["telemetry.sdk.language"], 32);
  return {
    serviceName: textOf(plain["service.name"], 200),
    release: textOf(plain["service.version"], 200),
    environment:
      textOf(plain["deployment.environment.name"], 64) ??
      textOf(plain["deployment.environment"], 64),
    platform:
      (language && Object.hasOwn(PLATFORMS, language) ? PLATFORMS[language] : null) ?? "other",
    prefixed,
  };
}

export interface ScopeInfo {
  name: string | null;
  version: string | null;
}

export function scopeInfo(scope: unknown): ScopeInfo {
  if (!isObjectLike(scope)) return { name: null, version: null };
  return { name: textOf(scope.name, 200), version: textOf(scope.version, 64) };
}
