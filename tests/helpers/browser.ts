import fs from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { ROOT } from "./server";

/**
 * Debian's chromium driven by playwright-core (no browser download). Every page a test looks
 * at is saved to test-results/ so a person can see what it really shows, and a page is
 * always saved when its test fails.
 */
export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOT_DIR = path.join(ROOT, "test-results");

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Runs `use` on a fresh page of its own context. On failure the page is saved as
 * `<name>-failure.png` and the browser console is appended to the error.
 */
export async function withPage<T>(
  browser: Browser,
  name: string,
  use: (page: Page) => Promise<T>,
): Promise<T> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 640 } });
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on("console", (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`[pageerror] ${e.message}`));
  try {
    return await use(page);
  } catch (err) {
    await screenshot(page, `${name}-failure`).catch(() => undefined);
    if (err instanceof Error && consoleLines.length > 0) {
      err.message += `\n\nbrowser console:\n${consoleLines.slice(-30).join("\n")}`;
    }
    throw err;
  } finally {
    await context.close();
  }
}
