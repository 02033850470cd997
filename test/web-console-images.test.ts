// The console's gallery (src/web/console/image-*.ts): a seller uploads from the product page
// (multipart, its CSRF token in the action's query), changes alt texts, moves and deletes images;
// refusals are drawn under the gallery; another seller's product is not there; the pages' CSP
// lets the uploaded images show.
import { describe, expect, it } from 'vitest';
import { WEB_CSP } from '../src/web/layout.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { product, seller } from './helpers/builders.ts';
import { multipart, picture } from './helpers/images.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t } = useTestApp();

async function signedInBrowser(who: SignedIn, lang = 'en-CA') {
  const b = new Browser(t.app, { 'accept-language': lang });
  await b.signIn(who);
  return b;
}

const imagesAction = (html: string) => {
  const m = html.match(/enctype="multipart\/form-data" action="([^"]+)"/);
  return m![1]!.replaceAll('&amp;', '&');
};

const enc = encodeURIComponent;

describe('the console’s gallery', () => {
  it('uploads, describes, moves and deletes images from the product page; the store shows them', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const b = await signedInBrowser(s);
    const page = await b.get(`/console/products/${enc(p.id)}`);
    expect(textOf(page.html)).toContain('No uploaded images yet.');
    const action = imagesAction(page.html);
    expect(action).toMatch(/^\/console\/products\/products%3A[A-Za-z0-9_-]+\/images\?csrf=/);

    for (const [w, alt] of [
      [300, 'Paddle, front'],
      [200, 'Paddle, back'],
    ] as const) {
      const body = multipart(
        { altEn: alt, altFr: 'Pagaie' },
        { filename: 'p.png', type: 'image/png', body: await picture(w, 100) },
      );
      const done = await b.upload(action, body);
      expect(done.status).toBe(200);
      expect(done.url).toBe(`/console/products/${enc(p.id)}?image=uploaded#images`);
      expect(textOf(done.html)).toContain('The image is added.');
    }
    const gallery = (await t.api.as(s).get(`/products/${p.id}/images`)).body.images;
    expect(gallery.map((i: { altEn: string }) => i.altEn)).toEqual(['Paddle, front', 'Paddle, back']);
    const shown = await b.get(`/console/products/${enc(p.id)}`);
    expect(shown.html).toContain(`src="${gallery[0].files[0].url}"`);
    expect(shown.html).toContain('alt="Paddle, front"');
    expect(textOf(shown.html)).toContain('Image 1 of 2');

    // Move the second up, then change its alt texts, then delete the first.
    const second = `/console/products/${enc(p.id)}/images/${enc(gallery[1].id)}`;
    expect(textOf((await b.post(`${second}/move`, { position: '0' })).html)).toContain('The image is moved.');
    expect(
      (await t.api.as(s).get(`/products/${p.id}/images`)).body.images.map((i: { id: string }) => i.id),
    ).toEqual([gallery[1].id, gallery[0].id]);
    const saved = await b.post(second, {
      n: '0',
      'altEn-0': 'Back of the paddle',
      'altFr-0': 'Dos de la pagaie',
    });
    expect(textOf(saved.html)).toContain('The descriptions are saved.');
    const tooLong = await b.post(second, { n: '0', 'altEn-0': 'x'.repeat(301), 'altFr-0': '' });
    expect(tooLong.status).toBe(400);
    expect(textOf(tooLong.html)).toContain('Check the fields marked below.');
    const first = `/console/products/${enc(p.id)}/images/${enc(gallery[0].id)}`;
    expect(textOf((await b.post(`${first}/delete`, {})).html)).toContain('The image is deleted.');
    const left = (await t.api.as(s).get(`/products/${p.id}/images`)).body.images;
    expect(left.map((i: { altEn: string; altFr: string }) => [i.altEn, i.altFr])).toEqual([
      ['Back of the paddle', 'Dos de la pagaie'],
    ]);

    // The store's product page shows the uploaded image, and the pages' CSP allows it (same origin).
    const store = await new Browser(t.app).get(`/shop/products/${enc(p.id)}`);
    expect(store.status).toBe(200);
    expect(store.html).toContain(left[0].url);
    expect(store.headers['content-security-policy']).toBe(WEB_CSP);
    expect(WEB_CSP).toMatch(/img-src 'self'/);
  });

  it('refuses an upload without the page’s token, a GIF with the page again, and another seller’s product', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const b = await signedInBrowser(s, 'fr-CA');
    const page = await b.get(`/console/products/${enc(p.id)}`);
    const action = imagesAction(page.html);
    const png = multipart({}, { filename: 'p.png', type: 'image/png', body: await picture(30, 30) });
    const forged = await b.upload(action.replace(/csrf=[^&]+/, 'csrf=forged'), png);
    expect(forged.status).toBe(403);
    const noToken = await b.upload(action.replace(/\?.*$/, ''), png);
    expect(noToken.status).toBe(403);
    const gif = await b.upload(
      action,
      multipart({}, { filename: 'p.png', type: 'image/png', body: await picture(30, 30, 'gif') }),
    );
    expect(gif.status).toBe(400);
    expect(textOf(gif.html)).toContain('Les images doivent être en JPEG, PNG ou WebP; ce fichier est en gif');
    expect(textOf(gif.html)).toContain('Téléverser l’image');
    // Another seller: their product's gallery is not there for this one.
    const other = await product(t.api, await seller(t.api));
    const refused = await b.upload(action.replace(enc(p.id), enc(other.id)), png);
    expect(refused.status).toBe(404);
    expect((await t.api.as(s).get(`/products/${p.id}/images`)).body.images).toEqual([]);
  });
});
