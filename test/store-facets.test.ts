// The search page's facets: a product without a category is no category named "none", a count
// is written with its label; the options' facets (Size: S, M, L) and "In stock only", each
// choice removable, links keeping the rest; an address past the page's bounds is its 400.
import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';
import { admin, category, product, seller, uniqueWord } from './helpers/builders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

describe('the facets', () => {
  it('count categories and shops beside their names, with no "none" category', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const c = await category(t.api, await admin(t.api, database), 'Paddles');
    await product(t.api, s, { title: `${word} cedar paddle`, categoryId: c.id });
    await product(t.api, s, { title: `${word} birch paddle`, categoryId: c.id });
    await product(t.api, s, { title: `${word} loose paddle` });
    const page = await new Browser(t.app).get(`/?q=${word}`);
    const facets = page.html.match(/<details class="facets card">[\s\S]*?<\/details>/)?.[0] ?? '';
    expect(facets).not.toContain('value="none"');
    expect(textOf(facets)).not.toMatch(/\bnone\b/i);
    const labels = [...facets.matchAll(/<label class="check">([\s\S]*?)<\/label>/g)].map((m) =>
      textOf(m[1]!),
    );
    expect(labels).toEqual([`${c.name} (2)`, 'Maple Goods (3)', 'In stock only (3)']);
    // The count is one unbreakable piece inside the label's text.
    expect(facets).toContain(`${c.name} <span class="count">(2)</span></span></label>`);
  });
});

/** A T-shirt in S, M (sold out) and L; a hoodie in M and L; a mug sold one way. */
async function clothes(word: string) {
  const s = await seller(t.api);
  const make = async (body: Record<string, unknown>) => {
    const made = await t.api.as(s).post('/products', { weight: 0.3, ...body });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body as { id: string };
  };
  const tee = await make({
    title: `${word} tee`,
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: [
      { options: { Size: 'S' }, priceCents: 1500, stockQuantity: 5 },
      { options: { Size: 'M' }, priceCents: 2000, stockQuantity: 0 },
      { options: { Size: 'L' }, priceCents: 3000, stockQuantity: 2 },
    ],
  });
  const hoodie = await make({
    title: `${word} hoodie`,
    options: [{ name: 'Size', values: ['M', 'L'] }],
    variants: [
      { options: { Size: 'M' }, priceCents: 5500, stockQuantity: 3 },
      { options: { Size: 'L' }, priceCents: 5500, stockQuantity: 1 },
    ],
  });
  const mug = await make({ title: `${word} mug`, priceCents: 1200, stockQuantity: 4 });
  return { tee, hoodie, mug };
}

/** The checkboxes' labels of the fieldset whose legend is `legend`, as read. */
const boxesOf = (html: string, legend: string) => {
  const set = [...html.matchAll(/<fieldset><legend>([^<]*)<\/legend>([\s\S]*?)<\/fieldset>/g)].find(
    (m) => textOf(m[1]!) === legend,
  );
  return [...(set?.[2] ?? '').matchAll(/<label class="check">([\s\S]*?)<\/label>/g)].map((m) =>
    textOf(m[1]!),
  );
};
/** The "Your filters" links: what each says and where it goes. */
const chipsOf = (html: string) =>
  [...html.matchAll(/<li><a href="([^"]*)">([\s\S]*?)<\/a><\/li>/g)]
    .filter((m) => m[0].includes('visually-hidden'))
    .map((m) => [textOf(m[2]!), textOf(m[1]!)]);
const titlesOf = (html: string) =>
  [...html.matchAll(/<h2><a href="\/shop\/products\/[^"]*">([^<]*)<\/a>/g)].map((m) => m[1]).sort();

describe('the options and stock facets', () => {
  it('count each size and the products in stock; a size and "in stock only" narrow, and are removable', async () => {
    const word = uniqueWord();
    await clothes(word);
    const b = new Browser(t.app);
    const all = await b.get(`/?q=${word}`);
    expect(all.status).toBe(200);
    expect(titlesOf(all.html)).toEqual([`${word} hoodie`, `${word} mug`, `${word} tee`]);
    expect(boxesOf(all.html, 'Size').sort()).toEqual(['L (2)', 'M (2)', 'S (1)']);
    // The tee is in stock (its S and L), the hoodie and the mug too.
    expect(boxesOf(all.html, 'Availability')).toEqual(['In stock only (3)']);
    expect(all.html).toContain('<input type="checkbox" name="option.Size" value="M">');
    expect(all.html).toContain('<input type="checkbox" name="inStock" value="yes">');
    expect(chipsOf(all.html)).toEqual([]);

    const m = await b.get(`/?q=${word}&option.Size=M`);
    expect(titlesOf(m.html)).toEqual([`${word} hoodie`, `${word} tee`]);
    expect(boxesOf(m.html, 'Size')).toEqual(['M (2)']);
    expect(m.html).toContain('<input type="checkbox" name="option.Size" value="M" checked>');
    // Only the hoodie's M has a unit free.
    expect(boxesOf(m.html, 'Availability')).toEqual(['In stock only (1)']);
    expect(chipsOf(m.html)).toEqual([['Remove Size: M ×', `/?q=${word}`]]);

    const mInStock = await b.get(`/?q=${word}&option.Size=M&inStock=yes`);
    expect(titlesOf(mInStock.html)).toEqual([`${word} hoodie`]);
    expect(textOf(mInStock.html)).toContain('1 product');
    expect(mInStock.html).toContain('<input type="checkbox" name="inStock" value="yes" checked>');
    expect(chipsOf(mInStock.html)).toEqual([
      ['Remove Size: M ×', `/?q=${word}&inStock=yes`],
      ['Remove In stock only ×', `/?q=${word}&option.Size=M`],
    ]);
    // Any case finds the same: the seller's spelling is what the facet shows.
    const lower = await b.get(`/?q=${word}&option.size=m&inStock=yes`);
    expect(titlesOf(lower.html)).toEqual([`${word} hoodie`]);
    expect(boxesOf(lower.html, 'Size')).toEqual(['m (1)']);
  });

  it('links and forms keep the query, the other facets and the sort', async () => {
    const word = uniqueWord();
    await clothes(word);
    const b = new Browser(t.app);
    const page = await b.get(`/?q=${word}&option.Size=L&option.Size=S&inStock=yes&max=40&sort=price_desc`);
    // The hoodie's L costs $55: over the maximum.
    expect(titlesOf(page.html)).toEqual([`${word} tee`]);
    expect(chipsOf(page.html)).toEqual([
      ['Remove Size: L ×', `/?q=${word}&max=40&inStock=yes&option.Size=S&sort=price_desc`],
      ['Remove Size: S ×', `/?q=${word}&max=40&inStock=yes&option.Size=L&sort=price_desc`],
      ['Remove In stock only ×', `/?q=${word}&max=40&option.Size=L&option.Size=S&sort=price_desc`],
      ['Remove Up to $40.00 ×', `/?q=${word}&inStock=yes&option.Size=L&option.Size=S&sort=price_desc`],
    ]);
    // The sort's form carries every choice but the sort.
    const sortForm = page.html
      .match(/<form method="get" action="\/">(?:(?!<\/form>)[\s\S])*name="sort"[\s\S]*?<\/form>/g)!
      .at(-1)!;
    expect(
      [...sortForm.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
        (x) => `${x[1]}=${x[2]}`,
      ),
    ).toEqual([`q=${word}`, 'max=40', 'inStock=yes', 'option.Size=L', 'option.Size=S']);
    // The filters' form: the chosen sizes and the stock box ticked, the sort kept.
    const facets = page.html.match(/<details class="facets card">[\s\S]*?<\/details>/)![0];
    expect(facets).toContain('<input type="hidden" name="sort" value="price_desc">');
    expect(facets).toContain('name="option.Size" value="L" checked>');
    expect(facets).toContain('name="option.Size" value="S" checked>');
    expect(facets).toContain('name="inStock" value="yes" checked>');
    // "Clear the filters" keeps the words and the sort only.
    const clear = facets.match(/<a href="([^"]*)">Clear the filters<\/a>/)![1]!;
    expect(textOf(clear)).toBe(`/?q=${word}&sort=price_desc`);
  });

  it('speaks French around the sellers’ own words', async () => {
    const word = uniqueWord();
    await clothes(word);
    const page = await new Browser(t.app).get(`/?lang=fr-CA&q=${word}&option.Size=M&inStock=yes`);
    expect(page.html).toContain('<html lang="fr-CA">');
    expect(boxesOf(page.html, 'Size')).toEqual(['M (1)']);
    expect(boxesOf(page.html, 'Disponibilité')).toEqual(['En stock seulement (1)']);
    expect(chipsOf(page.html).map(([label]) => label)).toEqual([
      'Retirer Size : M ×',
      'Retirer En stock seulement ×',
    ]);
    expect(textOf(page.html)).toContain('Vos filtres');
  });

  it('does not offer a value its filter cannot say', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const made = await t.api.as(s).post('/products', {
      title: `${word} scarf`,
      weight: 0.2,
      options: [{ name: 'Colour', values: ['Red, dark', 'Blue|green', 'Grey'] }],
      variants: [
        { options: { Colour: 'Red, dark' }, priceCents: 2500, stockQuantity: 1 },
        { options: { Colour: 'Blue|green' }, priceCents: 2500, stockQuantity: 1 },
        { options: { Colour: 'Grey' }, priceCents: 2500, stockQuantity: 1 },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const page = await new Browser(t.app).get(`/?q=${word}`);
    expect(boxesOf(page.html, 'Colour')).toEqual(['Grey (1)']);
  });

  it('refuses an address past its bounds with the page’s 400, never a server error', async () => {
    const b = new Browser(t.app);
    const long = 'x'.repeat(51);
    const many = Array.from({ length: 51 }, (_, i) => `option.Size=v${i}`).join('&');
    const names = Array.from({ length: 6 }, (_, i) => `option.N${i}=a`).join('&');
    for (const bad of [
      `option.${long}=M`,
      `option.Size=${long}`,
      'option.Size=',
      'option.=M',
      `option.Size=${encodeURIComponent('M,inStock:false')}`,
      `option.Size=${encodeURIComponent('M|L')}`,
      `option.${encodeURIComponent('Size:x')}=M`,
      many,
      names,
      'inStock=maybe',
      'inStock=yes&inStock=yes',
    ]) {
      const page = await b.get(`/?q=tee&${bad}`);
      expect(page.status, bad).toBe(400);
      expect(textOf(page.html), bad).toContain('This request could not be read. Go back and try again.');
    }
    // At the bounds: five options, fifty values of fifty characters.
    const fifty = Array.from({ length: 50 }, (_, i) => `option.Size=${String(i).padStart(50, 'v')}`).join(
      '&',
    );
    const five = Array.from({ length: 3 }, (_, i) => `option.N${i}=a`).join('&');
    expect((await b.get(`/?q=tee&${fifty}&${five}&option.${'x'.repeat(50)}=M&inStock=yes`)).status).toBe(200);
  });
});
