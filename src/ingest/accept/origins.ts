/**
 * A project's "Allowed Domains" (Sentry's setting, default `*`): which web pages may send
 * events with its public DSN. Checked at accept only when the request says where it comes
 * from (a browser's `Origin`, else its `Referer`), so server SDKs are never affected.
 *
 * An entry is `*`, or `[scheme://]host[:port]` where host is a name, `*.name` (the name and
 * its subdomains), an IPv4 address, `[IPv6]` or `*`, and port a number or `*`; a missing
 * scheme or port matches any. As Sentry: an empty list allows no page at all.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

interface Entry {
  scheme: string | "*";
  /** Lowercase; "*" any host; a leading "*." the name and its subdomains. */
  host: string;
  port: string | "*";
}

const ENTRY =
  /^(?:(\*|[a-z][a-z0-9+.-]{0,30}):\/\/)?(\*|(?:\*\.)?[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?)*\.?|\[[0-9a-f:.]{2,45}\])(?::(\*|\d{1,5}))?\/?$/;

export function parseAllowedDomain(entry: string): Parsed<Entry> {
  const text = entry.trim().toLowerCase();
  if (text === "") return { ok: false, error: "an allowed domain is empty" };
  if (text === "*") return { ok: true, value: { scheme: "*", host: "*", port: "*" } };
  const m = ENTRY.exec(text);
  if (!m || text.length > 300)
    return {
      ok: false,
      error: `"${entry.trim().slice(0, 100)}" is not a host pattern (e.g. example.com, *.example.com, https://example.com:8443 or *)`,
    };
  const port = m[3] ?? "*";
  if (port !== "*" && Number(port) > 65535)
    return { ok: false, error: `"${entry.trim()}": port ${port} is over 65535` };
  return {
    ok: true,
    value: { scheme: m[1] ?? "*", host: (m[2] as string).replace(/\.$/, ""), port },
  };
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** Decides origins for one project; decisions are remembered (a site sends from few origins). */
export class OriginMatcher {
  private readonly entries: Entry[];
  private readonly any: boolean;
  private readonly seen = new Map<string, boolean>();

  constructor(list: readonly string[]) {
    this.entries = [];
    for (const item of list) {
      const parsed = parseAllowedDomain(item);
      if (parsed.ok) this.entries.push(parsed.value);
    }
    this.any = this.entries.some((e) => e.scheme === "*" && e.host === "*" && e.port === "*");
  }

  /** Whether a project with this list needs checking at all (not just `*`). */
  get allowsAll(): boolean {
    return this.any;
  }

  allows(origin: string): boolean {
    if (this.any) return true;
    let decision = this.seen.get(origin);
    if (decision === undefined) {
      decision = this.decide(origin);
      if (this.seen.size >= 1000) this.seen.clear();
      this.seen.set(origin, decision);
    }
    return decision;
  }

  private decide(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.origin === "null" && !url.hostname) return false;
    const scheme = url.protocol.slice(0, -1);
    const host = url.hostname.toLowerCase();
    const port = url.port || DEFAULT_PORTS[url.protocol] || "";
    return this.entries.some((e) => {
      if (e.scheme !== "*" && e.scheme !== scheme) return false;
      if (e.port !== "*" && e.port !== port) return false;
      if (e.host === "*") return true;
      if (e.host.startsWith("*."))
        return host === e.host.slice(2) || host.endsWith(e.host.slice(1));
      return host === e.host;
    });
  }
}

/**
 * Where a browser request comes from: `Origin`, or when that is absent or "null" the origin
 * of `Referer`, as Sentry reads it. Undefined for a request that names neither (server SDKs).
 */
export function requestOrigin(
  origin: string | undefined,
  referer: string | undefined,
): string | undefined {
  if (origin && origin !== "null") return origin;
  if (!referer) return origin === "null" ? "null" : undefined;
  try {
    const u = new URL(referer);
    return u.origin === "null" ? referer : u.origin;
  } catch {
    return referer;
  }
}
