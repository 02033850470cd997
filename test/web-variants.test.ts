// Variants in the pages, over inject: the store's picker (radio groups in a GET form, the variant
// the submitted values name, its price and availability, a combination not made or sold out
// refused with its reason), the cart's lines and buttons per variant, and the console's form of
// options and variants with its refusals under their fields.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { cartItems } from '../src/modules/cart/tables.ts';
import { productVariants } from '../src/modules/catalog/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, seller, uniqueWord } from './helpers/builders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();
let s: SignedIn;

beforeAll(async () => {
  s = await seller(t.api);
});

interface Paddle {
  id: string;
  title: string;
  word: string;
  variants: Array<{ id: string; sku: string; title: string }>;
}

/** A canoe paddle: Cedar 150 cm sold out, Cedar 160 cm on sale (compare-at), Ash 160 cm 2 left; Ash 150 cm not made. */
async function paddle(): Promise<Paddle> {
  const word = uniqueWord();
  const res = await t.api.as(s).post('/products', {
    title: `Canoe paddle ${word}`,
    weight: 1.2,
    options: [
      { name: 'Wood', values: ['Cedar', 'Ash'] },
      { name: 'Length', values: ['150 cm', '160 cm'] },
    ],
    variants: [
      {
        sku: `C150-${word}`,
        options: { Wood: 'Cedar', Length: '150 cm' },
        priceCents: 12900,
        stockQuantity: 0,
      },
      {
        sku: `C160-${word}`,
        options: { Wood: 'Cedar', Length: '160 cm' },
        priceCents: 13900,
        compareAtPriceCents: 15900,
        stockQuantity: 8,
      },
      {
        sku: `A160-${word}`,
        options: { Wood: 'Ash', Length: '160 cm' },
        priceCents: 14900,
        stockQuantity: 2,
      },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...res.body, word };
}

const variantOf = (p: Paddle, title: string) => p.variants.find((v) => v.title === title)!;

async function signedInBrowser(who: SignedIn) {
  const b = new Browser(t.app);
  await b.signIn(who);
  return b;
}

describe('the store’s product page with options', () => {
  it('shows a radio group per option, the first variant on sale chosen, and every variant with its price and availability', async () => {
    const p = await paddle();
    const page = await new Browser(t.app).get(`/shop/products/${p.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<fieldset class="options"><legend>Wood</legend>');
    expect(page.html).toMatch(/<input id="opt-0-0" type="radio" name="Wood" value="Cedar" checked>/);
    expect(page.html).toMatch(/<input id="opt-1-1" type="radio" name="Length" value="160 cm" checked>/);
    const text = textOf(page.html);
    expect(text).toContain('Your choice: Cedar / 160 cm');
    expect(text).toContain('Sale price $139.00 Regular price $159.00 In stock');
    expect(page.html).toContain('<s class="muted">');
    // The table: each variant, its price and availability.
    expect(text).toContain('Cedar / 150 cm $129.00 Out of stock');
    expect(text).toContain('Ash / 160 cm $149.00 Only 2 left');
    expect(page.html).toContain(`name="variant" value="${variantOf(p, 'Cedar / 160 cm').id}"`);
  });

  it('chooses the variant the submitted values name (and by ?variant=), and says when a combination is not made or sold out', async () => {
    const p = await paddle();
    const b = new Browser(t.app);
    const ash = await b.get(`/shop/products/${p.id}?Wood=Ash&Length=160+cm`);
    expect(textOf(ash.html)).toContain('Your choice: Ash / 160 cm $149.00 Only 2 left');
    expect(ash.html).toContain(`name="variant" value="${variantOf(p, 'Ash / 160 cm').id}"`);
    expect(ash.html).not.toContain('disabled');

    const bySku = await b.get(`/shop/products/${p.id}?variant=A160-${p.word}`);
    expect(textOf(bySku.html)).toContain('Your choice: Ash / 160 cm');

    const notMade = await b.get(`/shop/products/${p.id}?Wood=Ash&Length=150+cm`);
    expect(notMade.status).toBe(200);
    expect(textOf(notMade.html)).toContain(
      'Your choice: Ash / 150 cm This combination is not made; choose another.',
    );
    expect(notMade.html).toMatch(/<input id="opt-0-1" type="radio" name="Wood" value="Ash" checked>/);
    expect(notMade.html).toContain(
      '<button type="submit" disabled aria-describedby="buy-refused">Add to cart</button>',
    );

    const soldOut = await b.get(`/shop/products/${p.id}?Wood=Cedar&Length=150+cm`);
    expect(textOf(soldOut.html)).toContain('Your choice: Cedar / 150 cm $129.00 Out of stock');
    expect(soldOut.html).toContain('This choice is sold out; choose another.');
    expect(soldOut.html).toContain('disabled aria-describedby="buy-refused"');

    // An unknown value is not chosen: the first variant on sale's stands.
    const odd = await b.get(`/shop/products/${p.id}?Wood=%3Cscript%3E&Length=160+cm`);
    expect(odd.status).toBe(200);
    expect(textOf(odd.html)).toContain('Your choice: Cedar / 160 cm');
    expect(odd.html).not.toContain('<script>');

    const fr = await new Browser(t.app, { 'accept-language': 'fr-CA' }).get(
      `/shop/products/${p.id}?Wood=Ash&Length=160+cm`,
    );
    expect(textOf(fr.html)).toContain('Votre choix : Ash / 160 cm');
    expect(textOf(fr.html)).toContain('Plus que 2 en stock');
    expect(textOf(fr.html)).toContain('Toutes les variantes');
  });

  it('adds the chosen variant to the cart; the cart names it and its buttons change that line only', async () => {
    const p = await paddle();
    const b = await signedInBrowser(await buyer(t.api));
    const ash = variantOf(p, 'Ash / 160 cm');
    const cedar = variantOf(p, 'Cedar / 160 cm');
    await b.get(`/shop/products/${p.id}?Wood=Ash&Length=160+cm`);
    const cart = await b.post('/shop/cart/items', { product_id: p.id, variant: ash.id, quantity: '1' });
    expect(cart.url).toBe('/shop/cart?added=1');
    expect(textOf(cart.html)).toContain(`Canoe paddle ${p.word}, Ash / 160 cm $149.00`);
    await b.get(`/shop/products/${p.id}`);
    await b.post('/shop/cart/items', { product_id: p.id, variant: cedar.id, quantity: '2' });
    const both = await b.get('/shop/cart');
    expect(both.html).toContain(`action="/shop/cart/items/${ash.id}"`);
    expect(both.html).toContain(`action="/shop/cart/items/${cedar.id}"`);

    // Two of the Ash: the Cedar line keeps its 2.
    await b.post(`/shop/cart/items/${ash.id}`, { quantity: '2' });
    const lines = await database.db
      .select({ variantId: cartItems.variantId, quantity: cartItems.quantity })
      .from(cartItems)
      .where(eq(cartItems.productId, p.id));
    expect(Object.fromEntries(lines.map((l) => [l.variantId, l.quantity]))).toEqual({
      [ash.id]: 2,
      [cedar.id]: 2,
    });

    // More than are left: refused on the product page, the variant still chosen.
    const tooMany = await b.post('/shop/cart/items', { product_id: p.id, variant: ash.id, quantity: '5' });
    expect(tooMany.status).toBe(409);
    expect(textOf(tooMany.html)).toContain('Your choice: Ash / 160 cm');

    // A sold-out variant posted anyway is refused as the API refuses it.
    const sold = await b.post('/shop/cart/items', {
      product_id: p.id,
      variant: variantOf(p, 'Cedar / 150 cm').id,
      quantity: '1',
    });
    expect(sold.status).toBe(409);
  });

  it('signed out, the chosen variant is added once the buyer signs in, and the page comes back with it chosen', async () => {
    const p = await paddle();
    const who = await buyer(t.api);
    const ash = variantOf(p, 'Ash / 160 cm');
    const b = new Browser(t.app);
    await b.get(`/shop/products/${p.id}?Wood=Ash&Length=160+cm`);
    const signIn = await b.post('/shop/cart/items', { product_id: p.id, variant: ash.id, quantity: '1' });
    expect(signIn.url).toContain('/account/sign-in?');
    const back = await b.post('/account/sign-in', {
      email: who.email,
      password: who.password,
      next: `/shop/products/${ash.id}`,
      add: ash.id,
      quantity: '1',
    });
    expect(back.url).toBe(
      `/shop/products/${encodeURIComponent(p.id)}?variant=${encodeURIComponent(ash.id)}&added=1`,
    );
    expect(textOf(back.html)).toContain('the product is in your cart');
    expect(textOf(back.html)).toContain('Your choice: Ash / 160 cm');
    const [line] = await database.db
      .select({ variantId: cartItems.variantId })
      .from(cartItems)
      .where(eq(cartItems.productId, p.id));
    expect(line?.variantId).toBe(ash.id);
  });
});

describe('the console’s options and variants', () => {
  /** The variants form of the edit page as it is now: its fields, to post back changed. */
  function formFields(html: string): Record<string, string> {
    const fields: Record<string, string> = {};
    const form = html.slice(html.indexOf('/variants" class="card"'));
    for (const m of form.matchAll(/<input id="[^"]*" name="([^"]+)" type="text" value="([^"]*)"/g))
      fields[m[1]!] = textOf(m[2]!);
    for (const m of form.matchAll(/<input type="hidden" name="(variants\.\d+\.id)" value="([^"]+)"/g))
      fields[m[1]!] = m[2]!;
    for (const m of form.matchAll(
      /<input id="[^"]*" name="(options\.\d+\.(?:name|values))" type="text"(?: value="([^"]*)")?/g,
    ))
      fields[m[1]!] = textOf(m[2] ?? '');
    for (const m of form.matchAll(
      /<select id="[^"]*" name="([^"]+)">[\s\S]*?<option value="(\w+)" selected>/g,
    ))
      fields[m[1]!] = m[2]!;
    return fields;
  }

  it('shows the options and a row per variant plus an empty one; a duplicate combination is refused under its row; then saves', async () => {
    const p = await paddle();
    const b = await signedInBrowser(s);
    const edit = await b.get(`/console/products/${p.id}`);
    expect(edit.status).toBe(200);
    const f = formFields(edit.html);
    expect(f).toMatchObject({
      'options.0.name': 'Wood',
      'options.0.values': 'Cedar, Ash',
      'options.1.name': 'Length',
      'options.1.values': '150 cm, 160 cm',
      'options.2.name': '',
      'variants.0.sku': `C150-${p.word}`,
      'variants.0.value.0': 'Cedar',
      'variants.0.value.1': '150 cm',
      'variants.0.price': '129',
      'variants.1.compareAt': '159',
      'variants.2.stockQuantity': '2',
      'variants.3.sku': '',
      'variants.3.price': '',
    });
    // The product's own form asks no price or stock: they are the variants'.
    expect(edit.html).not.toContain('id="f-price"');
    expect(textOf(edit.html)).toContain('its prices and stock are each variant’s');

    // The new row repeats Ash / 160 cm: refused under it, nothing written.
    const twice = await b.post(`/console/products/${p.id}/variants`, {
      ...f,
      'variants.3.sku': `A160B-${p.word}`,
      'variants.3.value.0': 'Ash',
      'variants.3.value.1': '160 cm',
      'variants.3.price': '150',
      'variants.3.stockQuantity': '1',
    });
    expect(twice.status).toBe(409);
    expect(textOf(twice.html)).toContain('Check the fields marked below.');
    expect(twice.html).toContain(
      '<p class="field-error" id="f-variants-3-options-error">Ash / 160 cm: the same option values as another variant</p>',
    );
    // The filled row comes back as typed, and a new empty row after it.
    expect(formFields(twice.html)).toMatchObject({
      'variants.3.sku': `A160B-${p.word}`,
      'variants.4.sku': '',
    });
    expect(twice.html).toMatch(
      /name="variants\.3\.value\.0" type="text" value="Ash"[^>]*aria-invalid="true"/,
    );
    expect(
      await database.db.select().from(productVariants).where(eq(productVariants.productId, p.id)),
    ).toHaveLength(3);

    // A bad price is the API's message under that row's price.
    const badPrice = await b.post(`/console/products/${p.id}/variants`, { ...f, 'variants.1.price': 'lots' });
    expect(badPrice.status).toBe(400);
    expect(badPrice.html).toMatch(/id="f-variants-1-price-error">must be a positive integer \(cents\)/);

    // A new option value and a variant of it; Cedar 150 cm removed; Ash 160 cm repriced in French decimals.
    const saved = await b.post(`/console/products/${p.id}/variants`, {
      ...f,
      'options.0.values': 'Cedar, Ash, Maple',
      'variants.0.remove': 'on',
      'variants.2.price': '144,50',
      'variants.3.sku': `M150-${p.word}`,
      'variants.3.value.0': 'Maple',
      'variants.3.value.1': '150 cm',
      'variants.3.price': '119.00',
      'variants.3.stockQuantity': '4',
    });
    expect(saved.status).toBe(200);
    expect(saved.url).toBe(`/console/products/${encodeURIComponent(p.id)}?done=saved`);
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body.options).toEqual([
      { name: 'Wood', values: ['Cedar', 'Ash', 'Maple'] },
      { name: 'Length', values: ['150 cm', '160 cm'] },
    ]);
    expect(
      detail.body.variants.map((v: { title: string; priceCents: number; stockQuantity: number }) => [
        v.title,
        v.priceCents,
        v.stockQuantity,
      ]),
    ).toEqual([
      ['Cedar / 160 cm', 13900, 8],
      ['Ash / 160 cm', 14450, 2],
      ['Maple / 150 cm', 11900, 4],
    ]);
    const [removed] = await database.db
      .select({ status: productVariants.status })
      .from(productVariants)
      .where(eq(productVariants.sku, `C150-${p.word}`));
    expect(removed?.status).toBe('deleted');
  });

  it('saves the product’s own form without touching its variants, and another seller’s product is not there', async () => {
    const p = await paddle();
    const b = await signedInBrowser(s);
    await b.get(`/console/products/${p.id}`);
    const saved = await b.post(`/console/products/${p.id}`, {
      title: `Canoe paddle ${p.word} renamed`,
      description: 'Carved.',
      weight: '1.2',
      categoryId: '',
      imageUrl: '',
      status: 'active',
    });
    expect(saved.status).toBe(200);
    expect(saved.url).toContain('done=saved');

    const other = await signedInBrowser(await seller(t.api));
    await other.get('/console');
    expect((await other.get(`/console/products/${p.id}`)).status).toBe(404);
    const probe = await other.post(`/console/products/${p.id}/variants`, {
      'options.0.name': 'Wood',
      'options.0.values': 'Oak',
      'variants.0.price': '1',
      'variants.0.value.0': 'Oak',
    });
    expect(probe.status).toBe(404);
    expect(
      await database.db.select().from(productVariants).where(eq(productVariants.productId, p.id)),
    ).toHaveLength(3);
  });

  it('is in French, with a French decimal and the refusal in French', async () => {
    const p = await paddle();
    const b = new Browser(t.app, { 'accept-language': 'fr-CA' });
    await b.signIn(s);
    const edit = await b.get(`/console/products/${p.id}`);
    expect(textOf(edit.html)).toContain('Options et variantes');
    const f = formFields(edit.html);
    expect(f['variants.0.price']).toBe('129');
    expect(f['variants.1.compareAt']).toBe('159');
    const none = await b.post(`/console/products/${p.id}/variants`, {
      ...f,
      'variants.0.remove': 'on',
      'variants.1.remove': 'on',
      'variants.2.remove': 'on',
    });
    expect(none.status).toBe(400);
    expect(textOf(none.html)).toContain('Vérifiez les champs indiqués ci-dessous.');
  });
});

describe('the picker in the reader’s language', () => {
  it('shows translated option names and values; the address keeps the written ones; untranslated ones are said', async () => {
    const word = uniqueWord();
    const res = await t.api.as(s).post('/products', {
      title: `Canoe paddle ${word}`,
      weight: 1.2,
      translations: {
        'fr-CA': {
          title: `Pagaie ${word}`,
          options: [
            { name: 'Bois', values: ['Cèdre', 'Frêne'] },
            { name: 'Longueur', values: ['150 cm', '160 cm'] },
          ],
        },
      },
      options: [
        { name: 'Wood', values: ['Cedar', 'Ash'] },
        { name: 'Length', values: ['150 cm', '160 cm'] },
      ],
      variants: [
        { options: { Wood: 'Cedar', Length: '160 cm' }, priceCents: 13900, stockQuantity: 8 },
        { options: { Wood: 'Ash', Length: '160 cm' }, priceCents: 14900, stockQuantity: 2 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const b = new Browser(t.app);
    const fr = await b.get(`/shop/products/${res.body.id}?Wood=Ash&Length=160+cm&lang=fr-CA`);
    expect(fr.status).toBe(200);
    expect([...fr.html.matchAll(/<legend>([^<]+)<\/legend>/g)].map((m) => m[1])).toEqual([
      'Bois',
      'Longueur',
    ]);
    expect(fr.html).toContain(
      '<input id="opt-0-1" type="radio" name="Wood" value="Ash" checked><span>Frêne</span>',
    );
    expect(textOf(fr.html)).toContain('Votre choix : Frêne / 160 cm');
    expect(textOf(fr.html)).not.toContain('Options nommées en anglais seulement');
    const en = await b.get(`/shop/products/${res.body.id}?Wood=Ash&Length=160+cm&lang=en-CA`);
    expect(en.html).toContain(
      '<input id="opt-0-1" type="radio" name="Wood" value="Ash" checked><span>Ash</span>',
    );
    expect(textOf(en.html)).toContain('Your choice: Ash / 160 cm');

    // A paddle whose options are not translated: in French, named as written, and said.
    const p = await paddle();
    const untranslated = await b.get(`/shop/products/${p.id}?lang=fr-CA`);
    expect(textOf(untranslated.html)).toContain('Options nommées en anglais seulement');
    expect(untranslated.html).toContain('<legend lang="en-CA">Wood</legend>');
  });
});
