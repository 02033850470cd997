// The platform's policies (src/web/policies/, src/modules/policies): public pages for the terms,
// privacy and returns in the visitor's language, written by an admin in the desk (never as HTML),
// and linked from every page's footer and the checkout.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { sitePolicies } from '../src/modules/policies/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, seller } from './helpers/builders.ts';
import { filledCart } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

const KINDS = ['terms', 'privacy', 'returns'] as const;
const TITLES = {
  'en-CA': { terms: 'Terms of use', privacy: 'Privacy policy', returns: 'Returns and refunds' },
  'fr-CA': {
    terms: 'Conditions d’utilisation',
    privacy: 'Politique de confidentialité',
    returns: 'Retours et remboursements',
  },
} as const;

let boss: SignedIn;
let desk: Browser;
beforeAll(async () => {
  boss = await admin(t.api, database);
  desk = new Browser(t.app);
  await desk.signIn(boss);
});

/** A visitor whose browser asks for `language`. */
const visitor = (language: string) => new Browser(t.app, { 'accept-language': language });

describe('the policy pages', () => {
  it('serve the service’s own texts in the visitor’s language, with the return window it enforces', async () => {
    for (const [language, locale] of [
      ['en-CA,en;q=0.9', 'en-CA'],
      ['fr-CA,fr;q=0.9', 'fr-CA'],
    ] as const) {
      const b = visitor(language);
      for (const kind of KINDS) {
        const res = await b.get(`/policies/${kind}`);
        expect(res.status, `${locale} ${kind}`).toBe(200);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['content-language']).toBe(locale);
        expect(res.html).toContain(`<html lang="${locale}">`);
        expect(res.html).toContain(`<h1>${TITLES[locale][kind]}</h1>`);
        expect(res.html).not.toMatch(/<script| style=/);
      }
    }
    // RETURN_WINDOW_DAYS is 30 in the tests' settings.
    expect(textOf((await visitor('en').get('/policies/returns')).html)).toContain(
      'You may return what you bought within 30 days after it was delivered.',
    );
    const fr = textOf((await visitor('fr').get('/policies/returns')).html);
    expect(fr).toContain('Vous pouvez retourner vos achats dans les 30 jours suivant leur livraison.');
    expect(fr).not.toContain('delivered');
    // ?lang= (the language switch) wins over the browser's language.
    const switched = await visitor('en').get('/policies/privacy?lang=fr-CA');
    expect(switched.html).toContain('<h1>Politique de confidentialité</h1>');
  });

  it('are linked from every page’s footer, and the checkout says paying accepts the terms', async () => {
    const home = await visitor('en').get('/');
    const footer = home.html.slice(home.html.indexOf('<footer>'));
    expect(footer).toContain(
      '<nav aria-label="Policies" class="policies"><a href="/policies/terms">Terms of use</a><a href="/policies/privacy">Privacy policy</a><a href="/policies/returns">Returns and refunds</a></nav>',
    );
    const frHome = await visitor('fr').get('/');
    expect(frHome.html).toContain('<a href="/policies/privacy">Politique de confidentialité</a>');

    const { buyer: who } = await filledCart(t);
    for (const [lang, line] of [
      [
        'en-CA',
        '<p class="hint">By paying, you accept our <a href="/policies/terms">terms of use</a> and our <a href="/policies/returns">returns policy</a>.</p>',
      ],
      [
        'fr-CA',
        '<p class="hint">En payant, vous acceptez nos <a href="/policies/terms">conditions d’utilisation</a> et notre <a href="/policies/returns">politique de retour</a>.</p>',
      ],
    ] as const) {
      const b = new Browser(t.app);
      await b.signIn(who);
      const checkout = await b.get(`/shop/checkout?lang=${lang}`);
      expect(checkout.status).toBe(200);
      // Just before the button that goes on to pay.
      expect(checkout.html).toContain(`${line}<button type="submit">`);
    }
  });
});

describe('the admin writes them in the desk', () => {
  it('saves each language’s text; the page shows it, as text; an empty text brings back the service’s own', async () => {
    const page = await desk.get('/desk/policies');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<a href="/desk/policies" aria-current="page">Policies</a>');
    for (const kind of KINDS) expect(page.html).toContain(`action="/desk/policies/${kind}"`);
    // The form holds what visitors read now: the service's own text.
    expect(page.html).toContain('You may return what you bought within 30 days after it was delivered.');
    expect(textOf(page.html)).toContain('At most 20,000 characters. The service’s own text.');

    const english = [
      'Our returns, in short.',
      '',
      '## Within 14 days',
      'Ask in your account.',
      'We answer within two days.',
      '',
      '- Unused items',
      '- In their box',
      '',
      '<script>alert("x")</script> & <b>bold</b>',
    ].join('\r\n');
    const saved = await desk.post('/desk/policies/returns', {
      'returns-en': english,
      'returns-fr': 'Nos retours, en bref.',
    });
    expect(saved.status).toBe(200);
    expect(saved.url).toBe('/desk/policies?done=returns#policy-returns');
    expect(textOf(saved.html)).toContain('Saved: visitors now read this text.');
    // The form's textarea holds the text, escaped.
    expect(saved.html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;');

    const rows = await database.db
      .select({ locale: sitePolicies.locale, body: sitePolicies.body, updatedBy: sitePolicies.updatedBy })
      .from(sitePolicies)
      .where(eq(sitePolicies.kind, 'returns'));
    expect(rows.sort((a, b) => (a.locale < b.locale ? -1 : 1))).toEqual([
      { locale: 'en-CA', body: english.replace(/\r\n/g, '\n'), updatedBy: boss.id },
      { locale: 'fr-CA', body: 'Nos retours, en bref.', updatedBy: boss.id },
    ]);

    const en = await visitor('en').get('/policies/returns');
    expect(en.html).toContain(
      '<h1>Returns and refunds</h1><p>Our returns, in short.</p>\n<h2>Within 14 days</h2><p>Ask in your account.<br>We answer within two days.</p>\n<ul><li>Unused items</li><li>In their box</li></ul>\n<p>&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#60;b&#62;bold&#60;/b&#62;</p>',
    );
    expect(en.html).not.toContain('<script>');
    expect(en.html).not.toContain('<b>');
    expect(textOf(en.html)).toMatch(/Last updated \w+ \d+, \d{4}\./);
    const fr = await visitor('fr').get('/policies/returns');
    expect(fr.html).toContain('<h1>Retours et remboursements</h1><p>Nos retours, en bref.</p>');
    expect(textOf(fr.html)).toMatch(/Dernière mise à jour : \d+ \S+ \d{4}\./);
    // The other policies are untouched.
    expect(textOf((await visitor('en').get('/policies/terms')).html)).toContain(
      'By paying for an order, you accept them.',
    );

    // Emptying the English text brings back the service's own; the French stays the admin's.
    await desk.get('/desk/policies');
    await desk.post('/desk/policies/returns', {
      'returns-en': '  \r\n ',
      'returns-fr': 'Nos retours, en bref.',
    });
    expect(textOf((await visitor('en').get('/policies/returns')).html)).toContain(
      'You may return what you bought within 30 days after it was delivered.',
    );
    expect((await visitor('fr').get('/policies/returns')).html).toContain('<p>Nos retours, en bref.</p>');
    expect(
      await database.db
        .select({ locale: sitePolicies.locale })
        .from(sitePolicies)
        .where(eq(sitePolicies.kind, 'returns')),
    ).toEqual([{ locale: 'fr-CA' }]);
  });

  it('refuses a text over 20,000 characters under its field, in the admin’s language, and saves neither language', async () => {
    await desk.get('/desk/policies?lang=fr-CA');
    const refused = await desk.post('/desk/policies/privacy', {
      'privacy-en': 'Short and fine.',
      'privacy-fr': 'x'.repeat(20_001),
    });
    expect(refused.status).toBe(400);
    // The problem is under the French field only, and what was typed is kept.
    expect(refused.html.match(/<p class="field-error" id="([^"]+)">([^<]*)<\/p>/g)).toEqual([
      '<p class="field-error" id="f-privacy-fr-error">doit compter au plus 20\u00a0000 caractères</p>',
    ]);
    expect(refused.html.includes(`aria-invalid="true">${'x'.repeat(20_001)}</textarea>`)).toBe(true);
    expect(refused.html).toContain('>Short and fine.</textarea>');
    expect(await database.db.select().from(sitePolicies).where(eq(sitePolicies.kind, 'privacy'))).toEqual([]);
    await desk.get('/desk/policies?lang=en-CA');
  });

  it('answers 404 for a policy that does not exist', async () => {
    await desk.get('/desk/policies');
    const res = await desk.post('/desk/policies/shipping', { 'shipping-en': 'Fast.' });
    expect(res.status).toBe(404);
    expect((await visitor('en').get('/policies/shipping')).status).toBe(404);
  });

  it('is for admins only: a visitor is sent to sign in, a buyer and a seller are refused (403), nothing saved', async () => {
    const anonymous = new Browser(t.app);
    const res = await anonymous.get('/desk/policies', { follow: false });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/account/sign-in?next=%2Fdesk%2Fpolicies');
    // A visitor's own form token (from the sign-in page) does not get a post through either.
    await anonymous.get('/account/sign-in');
    const post = await anonymous.post('/desk/policies/terms', { 'terms-en': 'Mine now.' }, { follow: false });
    expect(post.status).toBe(303);
    expect(post.headers.location).toMatch(/^\/account\/sign-in\?next=/);

    for (const who of [await buyer(t.api), await seller(t.api)]) {
      const b = new Browser(t.app);
      await b.signIn(who);
      const page = await b.get('/desk/policies');
      expect(page.status).toBe(403);
      expect(textOf(page.html)).toContain('This page is for administrators.');
      await b.get('/account');
      const posted = await b.post('/desk/policies/terms', { 'terms-en': 'Mine now.', 'terms-fr': 'À moi.' });
      expect(posted.status).toBe(403);
    }
    expect(await database.db.select().from(sitePolicies).where(eq(sitePolicies.kind, 'terms'))).toEqual([]);
    expect(textOf((await visitor('en').get('/policies/terms')).html)).not.toContain('Mine now.');
  });
});
