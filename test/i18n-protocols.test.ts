// The protocol adapters and checkout answer a person's words in the locale the request asks for
// (issue 24, "Agent answers"): Accept-Language: fr-CA gives French messages, while codes, params,
// paths and severities stay those of the English answer. Every ACP and UCP answer goes through
// the helpers, which check it against our zod contracts of the specs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACP_ON, ACP_VERSION, AcpClient, issuePlatform } from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, product, seller, uniqueEmail } from './helpers/builders.ts';
import { addToCart, checkout, openCheckout } from './helpers/checkout.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  UcpClient,
} from './helpers/ucp.ts';

// UCP wants https URLs in answers (continue_url, endpoints): the app's public URL is one.
const { t, database } = useTestApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });

const FRENCH = { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' };
const ENGLISH = { 'accept-language': 'en-CA' };

let boss: SignedIn;
let shop: SignedIn;
let acp: AcpClient;
let profiles: ProfileServer;
let ucp: UcpClient;
beforeAll(async () => {
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
  acp = new AcpClient(t.api, (await issuePlatform(t.api, boss)).apiKey, t.clock.now);
  profiles = await startProfileServer();
  profiles.documents.set('/agent.json', { body: platformProfile('http://127.0.0.1:9/hooks') });
  ucp = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/agent.json`));
});
afterAll(async () => {
  await profiles.close();
});

const buyerNamed = () => ({ email: uniqueEmail('i18n'), first_name: 'Avery', last_name: 'Tremblay' });
type Message = { type: string; code: string; content: string; param?: string; path?: string };
/** A message without its words: what must not change with the locale. */
const unsaid = ({ content: _, ...rest }: Message) => rest;

describe('ACP answers in the language Accept-Language asks for', () => {
  it('discovery lists both locales', async () => {
    const res = await t.api.get('/.well-known/acp.json');
    expect(res.body.capabilities.supported_locales).toEqual(['en-CA', 'fr-CA']);
  });

  it('an invalid postal code: the same code and param, the message in French; each reading in its own locale', async () => {
    const p = await product(t.api, shop);
    // An Ontario address with a Quebec postal code.
    const body = {
      line_items: [{ id: p.id }],
      buyer: buyerNamed(),
      fulfillment_details: { ...ACP_ON, address: { ...ACP_ON.address, postal_code: 'H3A 3G4' } },
    };
    const english = await acp.create(body, ENGLISH);
    const french = await acp.create(body, FRENCH);
    expect(french.status, JSON.stringify(french.body)).toBe(201);
    expect(french.body.status).toBe('not_ready_for_payment');
    const [en] = english.body.messages as Message[];
    const [fr] = french.body.messages as Message[];
    expect(unsaid(fr!)).toEqual(unsaid(en!));
    expect(fr).toMatchObject({
      type: 'error',
      code: 'invalid',
      param: '$.fulfillment_details.address.postal_code',
    });
    expect(en!.content).toContain('postal codes in ON start with K or L or M or N or P');
    expect(fr!.content).toMatch(/^postal_code : les codes postaux de l’Ontario commencent par/);
    expect(fr!.content).not.toMatch(/start with|postal codes/);
    // The session's locale is the spec's field: the language the request named.
    expect(french.body.locale).toBe('fr-CA');

    // The session keeps the message's words, not its language: read in English, it is English.
    const reread = await acp.get(french.body.id, ENGLISH);
    expect((reread.body.messages as Message[])[0]!.content).toBe(en!.content);
    // A held session's person-facing texts are French too.
    const held = await acp.update(french.body.id, { fulfillment_details: ACP_ON }, FRENCH);
    expect(held.body.status).toBe('ready_for_payment');
    expect(held.body.fulfillment_options[0].title).toBe('Livraison standard');
    expect(held.body.totals.map((x: { display_text: string }) => x.display_text)).toContain('Sous-total');
  });

  it('a flat error: the same type, code and param, its message in French', async () => {
    const p = await product(t.api, shop);
    const body = { line_items: [{ id: p.id }], currency: 'usd' };
    const english = await acp.create(body, ENGLISH);
    const french = await acp.create(body, FRENCH);
    expect(english.status).toBe(400);
    expect(english.body).toEqual({
      type: 'invalid_request',
      code: 'invalid',
      param: '$.currency',
      message: 'Portage sells in Canadian dollars only: send currency "cad"',
    });
    expect(french.status).toBe(400);
    expect(french.body).toEqual({
      type: 'invalid_request',
      code: 'invalid',
      param: '$.currency',
      message: 'Portage vend en dollars canadiens seulement : envoyez currency « cad »',
    });

    const unversioned = await t.api
      .as(acp.token)
      .post('/acp/checkout_sessions', body, { ...acp.headers(FRENCH), 'api-version': '' });
    expect(unversioned.status).toBe(400);
    expect(unversioned.body).toMatchObject({
      code: 'missing_api_version',
      supported_versions: [ACP_VERSION],
      message: `L’en-tête API-Version est obligatoire; versions prises en charge : ${ACP_VERSION}`,
    });
  });
});

describe('UCP answers in the language Accept-Language asks for', () => {
  it('an invalid postal code: the same code, path and severity, the message in French', async () => {
    const p = await product(t.api, shop, { priceCents: 1500 });
    const body = {
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: buyerNamed(),
      fulfillment: { methods: [{ type: 'shipping', destinations: [{ ...UCP_ON, postal_code: '12345' }] }] },
    };
    const english = await ucp.create(body, ENGLISH);
    const french = await ucp.create(body, FRENCH);
    expect(french.status, JSON.stringify(french.body)).toBe(201);
    expect(french.body.status).toBe('incomplete');
    const [en] = english.body.messages as Message[];
    const [fr] = french.body.messages as Message[];
    expect(unsaid(fr!)).toEqual(unsaid(en!));
    expect(fr).toMatchObject({
      type: 'error',
      code: 'invalid_address',
      path: '$.fulfillment.methods[0].destinations[0].postal_code',
      severity: 'recoverable',
    });
    expect(en!.content).toBe(
      'postal_code must look like A1A 1A1: upper-case letters, one space in the middle',
    );
    expect(fr!.content).toMatch(/^postal_code : doit /);
    expect(fr!.content).not.toMatch(/must|upper-case/);
  });

  it('a protocol error: the same status and code, its content in French', async () => {
    const p = await product(t.api, shop);
    const body = { line_items: [{ item: { id: p.id }, quantity: 1 }], buyer: { email: 'not an address' } };
    const english = await ucp.create(body, ENGLISH);
    const french = await ucp.create(body, FRENCH);
    expect(english.status).toBe(400);
    expect(english.body).toEqual({
      code: 'invalid_request',
      content: 'buyer.email must be an email address (at most 254 characters)',
    });
    expect(french.status).toBe(400);
    expect(french.body).toEqual({
      code: 'invalid_request',
      content: 'buyer.email doit être une adresse courriel (au plus 254 caractères)',
    });
  });
});

describe('POST /checkout refuses in the language Accept-Language asks for', () => {
  it('out of stock: the same 409 CONFLICT, its message in French', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Pagaie de canot en bouleau', stockQuantity: 3 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 3);
    const other = await buyer(t.api);
    await addToCart(t.api, other, p.id, 2);
    await openCheckout(t.api, other);

    expectError(
      await checkout(t.api, b, undefined, FRENCH),
      'CONFLICT',
      409,
      `Il ne reste qu’une unité de Pagaie de canot en bouleau (${p.id}); votre panier en contient 3. ` +
        'Modifiez le panier et passez de nouveau à la caisse',
    );
    expectError(
      await checkout(t.api, b, undefined, ENGLISH),
      'CONFLICT',
      409,
      `Only 1 left of Pagaie de canot en bouleau (${p.id}); your cart has 3. Change the cart and check out again`,
    );
  });
});
