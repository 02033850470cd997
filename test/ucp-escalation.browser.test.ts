// UCP's escalation (docs/ucp.md "The checkout"): a complete whose card needs its holder to
// confirm it (the sandbox's 3-D Secure card) answers requires_escalation with a continue_url;
// the person opens it in headless Chromium and pays on the sandbox's payment page; the session
// is then completed with one order, through UCP as through the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcpClient } from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { browserApp, browserUnavailable } from './helpers/browser.ts';
import { admin, product, seller, uniqueEmail } from './helpers/builders.ts';
import { ordersOfCheckout } from './helpers/orders.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  UcpClient,
} from './helpers/ucp.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('UCP escalation to the payment page, in Chromium', () => {
  // UCP wants an https continue_url: the app's public URL is one; the page is reached on the port.
  const env = browserApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });
  let profiles: ProfileServer;
  let shop: SignedIn;
  let ucp: UcpClient;
  let vault: AcpClient;
  beforeAll(async () => {
    profiles = await startProfileServer();
    profiles.documents.set('/agent.json', { body: platformProfile(`${profiles.base}/hooks`) });
    const platform = await issueUcpPlatform(
      env.t.api,
      await admin(env.t.api, env.database),
      `${profiles.base}/agent.json`,
    );
    ucp = new UcpClient(env.t.api, platform);
    vault = new AcpClient(env.t.api, platform.apiKey, env.t.clock.now);
    shop = await seller(env.t.api);
  });
  afterAll(() => profiles.close());

  it('a card that needs its holder: requires_escalation, continue_url; the person pays there; completed, one order', async () => {
    const p = await product(env.t.api, shop, { priceCents: 3100, stockQuantity: 5 });
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: { email: uniqueEmail('escalate') },
      fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
    });
    expect(created.body.status).toBe('ready_for_complete');
    const continueUrl: string = created.body.continue_url;
    expect(continueUrl).toMatch(/^https:\/\/portage\.test\/sandbox\/checkout\/checkouts%3A/);

    const token = await vault.delegate(created.body.id, { card: '4000 0027 6000 3184' });
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    const escalated = await ucp.complete(created.body.id, token.body.id);
    expect(escalated.status, JSON.stringify(escalated.body)).toBe(200);
    expect(escalated.body).toMatchObject({
      status: 'requires_escalation',
      continue_url: continueUrl,
      messages: [{ type: 'error', code: 'requires_3ds', severity: 'requires_buyer_input' }],
    });

    const page = await env.browser.page();
    try {
      const res = await page.goto(env.base + new URL(continueUrl).pathname);
      expect(res?.status()).toBe(200);
      await page.getByLabel('Card number').fill('4000 0027 6000 3184');
      await page.getByLabel('Name on card').fill('Avery Tremblay');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/pay')),
        page.getByRole('button', { name: /^Pay / }).click(),
      ]);
      expect(answer.status()).toBe(200);
      await expect(
        page.getByRole('heading', { name: 'Payment received: thank you!' }).isVisible(),
      ).resolves.toBe(true);
    } finally {
      await page.close();
    }

    const after = await ucp.get(created.body.id);
    expect(after.body.status).toBe('completed');
    expect(after.body.order.id).toMatch(/^order_/);
    expect(after.body.continue_url).toBeUndefined();
    const checkoutId = decodeURIComponent(new URL(continueUrl).pathname.split('/').pop()!);
    expect(await ordersOfCheckout(env.database, checkoutId)).toHaveLength(1);
  });
});
