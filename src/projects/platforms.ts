/**
 * The platforms a project can be made for, and the slug a name suggests. Free of zod and of
 * anything server-only: the create form uses both in the browser.
 */
export const PLATFORMS = ["javascript-browser", "node", "nextjs", "python", "other"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PLATFORM_LABELS: Record<Platform, string> = {
  "javascript-browser": "Browser JavaScript",
  node: "Node.js",
  nextjs: "Next.js",
  python: "Python",
  other: "Other",
};

/** A stored platform as one of the list; the built-in faultline project predates the list. */
export function knownPlatform(value: string | null): Platform | undefined {
  if (value === "javascript-nextjs") return "nextjs";
  return PLATFORMS.find((p) => p === value);
}

/** "My Shop (EU)" → "my-shop-eu": what the slug field defaults to when left empty. */
export function slugFromName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 50)
    .replace(/^-+|-+$/g, "");
}
