/**
 * Just enough of a user agent parser for the inbound filters: the browser family and major
 * version of the browsers Sentry's legacy-browser filter names, and whether it is a crawler.
 */
export interface Browser {
  family:
    | "IE"
    | "Edge"
    | "Opera"
    | "Opera Mini"
    | "Chrome"
    | "Firefox"
    | "Safari"
    | "Android"
    | "Other";
  major: number | undefined;
}

function major(ua: string, re: RegExp): number | undefined {
  const m = re.exec(ua);
  return m ? Number(m[1]) : undefined;
}

export function parseBrowser(ua: string): Browser {
  // Order matters: Opera and Edge also say Chrome and Safari, Chrome says Safari, Android's
  // own browser says Safari with "Version/", and IE 11 no longer says MSIE.
  if (/Opera Mini\//.test(ua))
    return { family: "Opera Mini", major: major(ua, /Opera Mini\/(\d+)/) };
  if (/\bOPR\//.test(ua)) return { family: "Opera", major: major(ua, /\bOPR\/(\d+)/) };
  if (/^Opera\//.test(ua))
    return { family: "Opera", major: major(ua, /Version\/(\d+)/) ?? major(ua, /^Opera\/(\d+)/) };
  if (/\bMSIE \d/.test(ua)) return { family: "IE", major: major(ua, /\bMSIE (\d+)/) };
  if (/Trident\/.*\brv:\d/.test(ua)) return { family: "IE", major: major(ua, /\brv:(\d+)/) };
  if (/\bEdge?\//.test(ua)) return { family: "Edge", major: major(ua, /\bEdge?\/(\d+)/) };
  if (/\bFirefox\//.test(ua)) return { family: "Firefox", major: major(ua, /\bFirefox\/(\d+)/) };
  if (/\b(?:Headless)?Chrom(?:e|ium)\//.test(ua))
    return { family: "Chrome", major: major(ua, /\b(?:Headless)?Chrom(?:e|ium)\/(\d+)/) };
  if (/\bAndroid \d/.test(ua) && /Version\/\d/.test(ua))
    return { family: "Android", major: major(ua, /\bAndroid (\d+)/) };
  if (/\bSafari\//.test(ua) && /Version\/\d/.test(ua))
    return { family: "Safari", major: major(ua, /Version\/(\d+)/) };
  return { family: "Other", major: undefined };
}

/**
 * Sentry's default legacy set: IE before 10 (11 and 10 are sub-filters Sentry offers too;
 * here the default), Safari before 6, Opera before 15, Opera Mini before 8, Android's
 * browser before 4.
 */
const MIN_VERSION: Partial<Record<Browser["family"], number>> = {
  IE: 10,
  Safari: 6,
  Opera: 15,
  "Opera Mini": 8,
  Android: 4,
};

export function isLegacyBrowser(ua: string): boolean {
  const b = parseBrowser(ua);
  const min = MIN_VERSION[b.family];
  return min !== undefined && b.major !== undefined && b.major < min;
}

/** Crawlers, monitors and link expanders, by the names they give themselves. */
const CRAWLERS =
  /Mediapartners-Google|AdsBot-Google|Googlebot|FeedFetcher-Google|BingBot|BingPreview|Baiduspider|Slurp|Sogou|facebook|ia_archiver|bots?[/\s);]|spider[/\s);]|Slack|Calypso\sAppCrawler|pingdom|lyticsbot|AWS\sSecurity\sScanner|HubSpot\sCrawler|Bytespider|Better\sUptime|YandexBot|DuckDuckBot|Applebot|Twitterbot|PetalBot|AhrefsBot|SemrushBot/i;
/** Slack's link unfurler is a person pasting a link, not a crawler. */
const NOT_CRAWLERS = /Slackbot\s1\.\d+/i;

export function isCrawler(ua: string): boolean {
  return CRAWLERS.test(ua) && !NOT_CRAWLERS.test(ua);
}
