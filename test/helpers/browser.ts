// Headless Chromium for tests that use a page as a person does: Debian's `chromium` (or
// CHROMIUM_PATH) driven by playwright-core (docs/decisions.md "Tests").
// Without the executable the browser tests are skipped, saying why; in CI
// (CI_REQUIRE_BROWSER=1, set by .ci/run) a missing browser fails the run instead.
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import axe from 'axe-core';
import { type BrowserContext, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { listen, type TestApp, useTestApp } from './app.ts';
import type { TestDatabase } from './db.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let reported = false;

/**
 * Why the browser tests cannot run on this machine, or undefined when they can. Prints the
 * reason once; throws instead when CI_REQUIRE_BROWSER=1, so that CI never skips them silently.
 */
export function browserUnavailable(): string | undefined {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return undefined;
  } catch {
    const missing = `No Chromium executable at ${CHROMIUM_PATH}`;
    const install =
      'Install it with `apt-get install chromium` (Debian/Ubuntu), or set CHROMIUM_PATH to a Chromium or Chrome executable.';
    if (process.env.CI_REQUIRE_BROWSER === '1') {
      throw new Error(`${missing}, and CI_REQUIRE_BROWSER=1 says the browser tests must run. ${install}`);
    }
    const reason = `${missing}: the browser tests are skipped. ${install}`;
    if (!reported) {
      reported = true;
      console.warn(reason);
    }
    return reason;
  }
}

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab. */
  page(): Promise<Page>;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with a fresh profile (its --user-data-dir, a new temporary
 * directory: Playwright takes it as launchPersistentContext's argument, not in `args`), in
 * `locale` (its Accept-Language and navigator.language; en-CA unless told).
 */
export async function launchBrowser(options: { locale?: string } = {}): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      timeout: 60_000,
      viewport: { width: 1100, height: 900 },
      locale: options.locale ?? 'en-CA',
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  // A missing element fails with Playwright's own message before the test's timeout, and
  // well after a busy machine has drawn the page.
  context.setDefaultTimeout(30_000);
  // The profile opens with one blank tab; tests open their own.
  for (const p of context.pages()) await p.close();
  return {
    context,
    page: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** What a browser test works with: the app listening on a port over its own database, and Chromium. */
export interface BrowserApp {
  database: TestDatabase;
  t: TestApp;
  /** The app's base URL. */
  base: string;
  browser: TestBrowser;
}

/**
 * Starts (beforeAll) and stops (afterAll) a browser test's app (useTestApp) and Chromium; `t`
 * and `database` stand for the app and its database, `base` and `browser` are set once the
 * suite starts. Call it inside the suite's describe.
 */
export function browserApp(options: Parameters<typeof useTestApp>[0] = {}): BrowserApp {
  const { t, database } = useTestApp(options);
  const env = { t, database } as BrowserApp;
  beforeAll(async () => {
    env.base = await listen(t);
    env.browser = await launchBrowser();
  });
  afterAll(async () => {
    await env.browser?.close();
  });
  return env;
}

/** axe-core's serious and critical violations on the page (or a frame's), as `rule: target` lines. */
export async function accessibilityProblems(page: Page | Frame): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no script) does not apply to it.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the script just evaluated
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: { id: string; impact: string; nodes: { target: string[] }[] }) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: { id: string; targets: string[] }) => `${v.id}: ${v.targets.slice(0, 3).join(', ')}`);
}

/** Saves the page (whole) as <name>.png under PAGE_SCREENSHOTS, when that names a directory. */
export async function screenshot(page: Page, name: string) {
  const dir = process.env.PAGE_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/**
 * Each page of `paths` on a 360 px phone: nothing wider than the screen, no serious or critical
 * accessibility problem; saved as `phone-<name>` under PAGE_SCREENSHOTS.
 */
export async function onAPhone(page: Page, base: string, paths: Record<string, string>) {
  await page.setViewportSize({ width: 360, height: 780 });
  const problems: string[] = [];
  for (const [name, path] of Object.entries(paths)) {
    await page.goto(`${base}${path}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > 360) problems.push(`${name}: ${width} px wide`);
    for (const p of await accessibilityProblems(page)) problems.push(`${name}: ${p}`);
    await screenshot(page, `phone-${name}`);
  }
  return problems;
}

/** Asserts the page has no serious or critical accessibility problem, then saves it as `name`. */
export async function checked(page: Page, name: string) {
  expect(await accessibilityProblems(page), name).toEqual([]);
  await screenshot(page, name);
}

/** Signs `who` in through the sign-in page (in English), the page's cookies cleared first. */
export async function signInPage(page: Page, base: string, who: { email: string; password: string }) {
  await page.context().clearCookies();
  await page.goto(`${base}/account/sign-in?lang=en-CA`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/account$/);
}

/** The page's laid-out width: nothing may pass the screen's. */
export const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
