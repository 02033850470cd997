// The search page's facets: a product without a category is no category named "none", and a
// count is written with its label.
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
    expect(labels).toEqual([`${c.name} (2)`, 'Maple Goods (3)']);
    // The count is one unbreakable piece inside the label's text.
    expect(facets).toContain(`${c.name} <span class="count">(2)</span></span></label>`);
  });
});
