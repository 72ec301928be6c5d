import zlib from "node:zlib";
import { launchBrowser } from "../tests/helpers/browser";

/**
 * The JavaScript each page makes Chromium load on a first visit, signed in: gzipped KB and
 * the number of scripts, set on each row (API rows are skipped). uPlot, loaded after the
 * page on purpose, is counted too, being JavaScript the page needs.
 */
export async function measureFirstLoadJs(
  baseUrl: string,
  cookies: Map<string, string>,
  rows: { path: string; jsKb?: number; scripts?: number }[],
): Promise<void> {
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    await context.addCookies([...cookies].map(([name, value]) => ({ name, value, url: baseUrl })));
    for (const row of rows) {
      if (row.path.startsWith("/api/")) continue;
      const page = await context.newPage();
      const scripts: Promise<number>[] = [];
      page.on("response", (res) => {
        if (res.request().resourceType() !== "script") return;
        scripts.push(
          res
            .body()
            .then((b) => zlib.gzipSync(b).length)
            .catch(() => 0),
        );
      });
      // Not "networkidle": the self-monitoring SDK and link prefetches keep the network
      // busy. The page's own scripts have all loaded by "load"; a pause catches late chunks.
      await page.goto(`${baseUrl}${row.path}`, { waitUntil: "load" });
      await page.waitForTimeout(1500);
      const sizes = await Promise.all(scripts);
      row.jsKb = sizes.reduce((a, b) => a + b, 0) / 1024;
      row.scripts = sizes.length;
      await page.close();
    }
  } finally {
    await browser.close();
  }
}
