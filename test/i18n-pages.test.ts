// The pages' language over inject (issue 24; Chromium reads them in i18n-pages.browser.test.ts):
// `?lang=fr-CA` chooses French whatever Accept-Language says, the forms carry it on in a hidden
// `lang` field so that their answer is French too, the buyer's saved preference chooses the
// payment page's language when the URL does not, and the consent page's words are the scopes'.
import { describe, expect, it } from 'vitest';
import { formatMoney, t } from '../src/contract/i18n.ts';
import { AGENT_SCOPES, SCOPE_DESCRIPTIONS } from '../src/contract/scopes.ts';
import { SCOPE_WORDS } from '../src/modules/oauth/pages.ts';
import { buyer, useTestApp } from './helpers/app.ts';
import { product, seller } from './helpers/builders.ts';
import { addToCart, openCheckout } from './helpers/checkout.ts';
import { useFakeStripeApp } from './helpers/fake-stripe.ts';
import { authorizeUrl, cookieOf, csrfOf, FORM, form, pkce, registerClient } from './helpers/oauth.ts';
import { filledCart } from './helpers/orders.ts';

const { t: app } = useTestApp();
const EN = { 'accept-language': 'en-CA,en;q=0.9' };
const FR = { 'accept-language': 'fr-CA,fr;q=0.9' };

const langOf = (html: string) => /^<!doctype html><html lang="([^"]+)"/.exec(html)?.[1];

async function checkoutPath() {
  const s = await seller(app.api);
  const p = await product(app.api, s, { priceCents: 3399 });
  const b = await buyer(app.api, 'lang');
  await addToCart(app.api, b, p.id, 1);
  const session = await openCheckout(app.api, b);
  return { b, session, path: new URL(session.sessionUrl).pathname };
}

describe('?lang= on the pages', () => {
  it('the payment page: ?lang=fr-CA beats Accept-Language, the form carries it, the refusal is French', async () => {
    const { session, path } = await checkoutPath();
    const total = formatMoney('fr-CA', session.totalCents);

    const english = await app.api.get(path, EN);
    expect(langOf(english.body)).toBe('en-CA');
    expect(english.body).toContain('Order summary');
    expect(english.body).toContain(`Pay ${formatMoney('en-CA', session.totalCents)}`);
    expect(english.body).not.toContain('name="lang"');
    // The switch offers the French page (its href as the browser reads it: = is written &#61;).
    expect(english.body.replaceAll('&#61;', '=')).toContain(
      `href="${path}?lang=fr-CA" lang="fr-CA" hreflang="fr-CA">Français</a>`,
    );

    const french = await app.api.get(`${path}?lang=fr-CA`, EN);
    expect(french.status).toBe(200);
    expect(langOf(french.body)).toBe('fr-CA');
    expect(french.body).toContain('Résumé de la commande');
    expect(french.body).toContain(`Payer ${total}`);
    expect(french.body).toContain('TVH 13 %');
    expect(french.body).not.toContain('Order summary');
    expect(french.body).toContain('<input type="hidden" name="lang" value="fr-CA">');
    expect(french.headers['content-security-policy']).not.toMatch(/script-src/);

    // Accept-Language alone chooses too; ?lang=en-CA beats it.
    expect(langOf((await app.api.get(path, FR)).body)).toBe('fr-CA');
    expect(langOf((await app.api.get(`${path}?lang=en-CA`, FR)).body)).toBe('en-CA');
    // An unknown lang is no choice.
    expect(langOf((await app.api.get(`${path}?lang=de-DE`, EN)).body)).toBe('en-CA');

    // The form's POST, with its hidden field, answers in French under an English browser.
    const declined = await app.api.post(`${path}/pay`, form({ card: '4000000000000002', lang: 'fr-CA' }), {
      ...FORM,
      ...EN,
    });
    expect(declined.status).toBe(400);
    expect(langOf(declined.body)).toBe('fr-CA');
    expect(declined.body).toContain(t('fr-CA', 'error.payments.sandboxDeclined'));
    const paid = await app.api.post(`${path}/pay`, form({ card: '4242424242424242', lang: 'fr-CA' }), {
      ...FORM,
      ...EN,
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toContain('Paiement reçu : merci!');
    expect(paid.body).toContain(`Vous avez payé ${total}. Votre commande est confirmée :`);
  });

  it('the payment page follows the buyer’s saved language unless the URL asks for another', async () => {
    const { b, path } = await checkoutPath();
    expect((await app.api.as(b).patch('/me', { locale: 'fr-CA' })).status).toBe(200);
    expect(langOf((await app.api.get(path, EN)).body)).toBe('fr-CA');
    expect(langOf((await app.api.get(`${path}?lang=en-CA`, FR)).body)).toBe('en-CA');
  });

  it('the sign-in and consent pages: ?lang=fr-CA goes through the sign-in form to the consent', async () => {
    const shopper = await buyer(app.api, 'lang-consent');
    const { clientId } = await registerClient(app.api, { client_name: 'Aisle Assistant' });
    const url = authorizeUrl({ clientId, challenge: pkce().challenge, method: 'S256', scope: 'shop orders' });
    const opened = await app.api.get(`${url}&lang=fr-CA`, EN);
    expect(opened.status).toBe(200);
    expect(langOf(opened.body)).toBe('fr-CA');
    expect(opened.body).toContain('Connectez-vous pour relier Aisle Assistant');
    expect(opened.body).toContain('<input type="hidden" name="lang" value="fr-CA">');

    const cookie = cookieOf(opened);
    // A wrong password: refused in French.
    const wrong = await app.api.post(
      '/oauth/sign-in',
      form({ csrf: csrfOf(opened.body)!, email: shopper.email, password: 'not the password', lang: 'fr-CA' }),
      { ...FORM, ...EN, cookie },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Courriel ou mot de passe invalide.');
    const signedIn = await app.api.post(
      '/oauth/sign-in',
      form({ csrf: csrfOf(opened.body)!, email: shopper.email, password: shopper.password, lang: 'fr-CA' }),
      { ...FORM, ...EN, cookie },
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.location).toBe('/oauth/consent?lang=fr-CA');
    const consent = await app.api.get(String(signedIn.headers.location), {
      ...EN,
      cookie: cookieOf(signedIn),
    });
    expect(langOf(consent.body)).toBe('fr-CA');
    expect(consent.body).toContain('Autoriser Aisle Assistant à utiliser votre compte?');
    expect(consent.body).toContain(t('fr-CA', 'page.consent.scope.shop'));
    expect(consent.body).toContain('<input type="hidden" name="lang" value="fr-CA">');

    // A refused request is shown in French too.
    const bad = await app.api.get(`${authorizeUrl({ clientId })}&lang=fr-CA`, EN);
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('Ce lien de connexion ne fonctionne pas');
    expect(bad.body).toContain('code_challenge est obligatoire (PKCE avec S256)');
  });

  it('the account link pages: ?lang=fr-CA, and the reset form’s problems in French', async () => {
    const bad = await app.api.get('/auth/email/verify?token=nope&lang=fr-CA', EN);
    expect(bad.status).toBe(400);
    expect(langOf(bad.body)).toBe('fr-CA');
    expect(bad.body).toContain('Ce lien ne fonctionne pas');
    const short = await app.api.post(
      '/auth/password/reset',
      form({ token: 'x'.repeat(43), password: 'court', confirmPassword: 'court', lang: 'fr-CA' }),
      { ...FORM, ...EN },
    );
    expect(short.status).toBe(400);
    expect(langOf(short.body)).toBe('fr-CA');
    expect(short.body).toContain('Le nouveau mot de passe doit compter au moins 8 caractères');
    expect(short.body).toContain('<input type="hidden" name="lang" value="fr-CA">');
  });

  it('the consent page says each scope as the metadata does, in English', () => {
    for (const scope of AGENT_SCOPES) expect(t('en-CA', SCOPE_WORDS[scope])).toBe(SCOPE_DESCRIPTIONS[scope]);
  });
});

describe('Stripe’s payment page and the page it returns to', () => {
  const { t: onStripe } = useFakeStripeApp('whsec_test_portage_i18n_0123456789');

  it('are French under Accept-Language fr-CA or ?lang=fr-CA, their scripts only Stripe’s', async () => {
    const { buyer: b } = await filledCart(onStripe, { fields: { priceCents: 1800 } });
    const session = await openCheckout(onStripe.api, b);
    const path = new URL(session.sessionUrl).pathname;
    const french = await onStripe.api.get(path, FR);
    expect(french.status).toBe(200);
    expect(langOf(french.body)).toBe('fr-CA');
    expect(french.body).toContain(`Portage : payer ${formatMoney('fr-CA', session.totalCents)} CAD`);
    expect(french.body).toContain('Le paiement nécessite JavaScript');
    expect(french.headers['content-security-policy']).toMatch(/script-src https:\/\/js\.stripe\.com 'nonce-/);
    expect(langOf((await onStripe.api.get(path, EN)).body)).toBe('en-CA');

    const back = path.replace(/\/pay$/, '/return');
    const returned = await onStripe.api.get(`${back}?lang=fr-CA`, EN);
    expect(langOf(returned.body)).toBe('fr-CA');
    expect(returned.body).toContain('Merci : votre paiement est en cours de confirmation.');
    expect((await onStripe.api.get(back, EN)).body).toContain('Thank you: your payment is being confirmed.');
  });
});
