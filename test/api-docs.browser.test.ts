// The API reference page (/docs) in headless Chromium: it draws the API from /openapi.json with
// nothing fetched from another host (it works offline), and its content security policy says so.
import { describe, expect, it } from 'vitest';
import { browserApp, browserUnavailable } from './helpers/browser.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('the API reference in Chromium', () => {
  const env = browserApp();

  it('shows the API from this server alone: no request leaves for another host', async () => {
    const page = await env.browser.page();
    const elsewhere: string[] = [];
    const failed: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.protocol.startsWith('http') && url.origin !== new URL(env.base).origin) elsewhere.push(r.url());
    });
    page.on('requestfailed', (r) => failed.push(r.url()));
    const res = await page.goto(`${env.base}/docs`);
    expect(res?.status()).toBe(200);
    // Drawn from /openapi.json: its title, and the summary of the first operation.
    await page.getByRole('heading', { name: 'Portage API' }).first().waitFor({ state: 'visible' });
    await page.getByText('Liveness and database reachability').first().waitFor({ state: 'visible' });
    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT });
    await page.waitForLoadState('networkidle');
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).not.toContain('https:');
    await page.close();
  });
});
