/**
 * Which of two releases is later. Versions that both read as semantic versions (optionally
 * `package@1.2.3`, with 1 to 4 numeric parts and a pre-release) compare as such, as Sentry
 * does for projects that follow semver; anything else (commit hashes, dates, names) compares
 * by when Faultline first saw each release in the project.
 */
interface Version {
  pkg: string;
  parts: number[];
  pre: string[];
}

const VERSION =
  /^(?:([^@\s]+)@)?v?(\d{1,9}(?:\.\d{1,9}){0,3})(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseVersion(release: string): Version | null {
  const m = VERSION.exec(release.trim());
  if (!m) return null;
  const parts = (m[2] as string).split(".").map(Number);
  while (parts.length < 4) parts.push(0);
  return { pkg: m[1] ?? "", parts, pre: m[3] ? m[3].split(".") : [] };
}

/** <0, 0, >0 like a comparator; null when the two are not both semver of one package. */
export function compareVersions(a: string, b: string): number | null {
  const va = parseVersion(a);
  const vb = parseVersion(b);
  if (!va || !vb || va.pkg !== vb.pkg) return null;
  for (let i = 0; i < 4; i++) {
    const d = (va.parts[i] as number) - (vb.parts[i] as number);
    if (d !== 0) return Math.sign(d);
  }
  // A pre-release comes before its release; identifiers compare numerically when both are.
  if (va.pre.length === 0 || vb.pre.length === 0) return Math.sign(vb.pre.length - va.pre.length);
  for (let i = 0; i < Math.max(va.pre.length, vb.pre.length); i++) {
    const x = va.pre[i];
    const y = vb.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Math.sign(Number(x) - Number(y));
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Whether an event of `eventRelease` reopens an issue resolved in a release. An event
 * without a release never does (Sentry's rule: the app went from no release to some, so
 * it is older). `firstSeen` gives when a release was first seen in the project.
 */
export function releaseReopens(
  resolution: { mode: "next" | "release"; release: string | null; releaseFirstSeen: number },
  eventRelease: string | null,
  eventReleaseFirstSeen: number,
): boolean {
  if (!eventRelease) return false;
  const { mode, release } = resolution;
  // Resolved in the next release when the project had none: any release is later.
  if (release === null) return true;
  const cmp =
    compareVersions(eventRelease, release) ??
    (eventRelease === release
      ? 0
      : Math.sign(eventReleaseFirstSeen - resolution.releaseFirstSeen) || 1);
  return mode === "next" ? cmp > 0 : cmp >= 0;
}
