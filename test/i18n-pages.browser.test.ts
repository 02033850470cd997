// Every page a person reads, in French and in English, in headless Chromium (issue 24): the
// sandbox payment page of a real checkout, the OAuth sign-in and consent pages, and the email
// verification and password reset pages. Each is opened twice, with Accept-Language fr-CA and
// en-CA: the French one has its French words and `<html lang="fr-CA">`, and none of the words
// the English one shows (beyond names, codes and the few words both languages share). Then a
// checkout is paid on the French page with 4242 4242 4242 4242, and the answer is French.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney, type Locale, t } from '../src/contract/i18n.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import { browserApp, browserUnavailable, launchBrowser, type TestBrowser } from './helpers/browser.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, openCheckout, QC_ADDRESS } from './helpers/checkout.ts';
import { authorizeUrl, pkce, registerClient } from './helpers/oauth.ts';
import { emlFiles } from './helpers/orders.ts';
import { parseEml } from './helpers/smtp.ts';

const unavailable = browserUnavailable();

/**
 * Words that are no language's (the brand, the language switch: each page offers the other
 * language by its own name; currency, time zone and month codes), and words French and English
 * write alike ("Total", "code de sécurité", "cartes de test", "cette page", "coupons").
 */
const SHARED = new Set([
  // A time zone's short name in English (EST) is a French word (est): the page is in French.
  ...['portage', 'english', 'français', 'cad', 'cvc', 'est', 'mm'],
  ...['total', 'code', 'test', 'dollars', 'agent', 'agents', 'confirmation', 'page', 'coupons'],
]);

/** Names of other companies' products, the same in every language. */
const BRANDS = ['Apple Pay', 'Google Pay', 'Klarna', '3-D Secure', 'Stripe'];

/** The text a person sees (rendered: hidden parts left out). */
// biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text we mean
const shown = (locator: Locator) => locator.innerText();

/** Spaces as people see them (Intl and French typography use no-break spaces). */
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

/** The words of `text` (letters, lowercased), leaving out `data`: what users and sellers wrote, codes. */
function wordsOf(text: string, data: string[] = []): Set<string> {
  let rest = plain(text);
  for (const d of [...data, ...BRANDS].sort((a, b) => b.length - a.length)) {
    const escaped = d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    rest = rest.replace(new RegExp(`(?<!\\p{L})${escaped}(?!\\p{L})`, 'giu'), ' ');
  }
  return new Set((rest.match(/\p{L}[\p{L}’'-]*/gu) ?? []).map((w) => w.toLowerCase()));
}

describe.skipIf(unavailable !== undefined)('every page in French and in English, in Chromium', () => {
  // The English browser (browserApp's, en-CA) and a French one: Chromium in fr-CA, whose
  // requests say Accept-Language: fr-CA.
  const env = browserApp();
  let french: TestBrowser;
  beforeAll(async () => {
    french = await launchBrowser({ locale: 'fr-CA' });
  });
  afterAll(async () => {
    await french?.close();
  });

  /** A tab of the browser in `locale`, recording script errors and dialogs. */
  async function tab(locale: Locale) {
    const page = await (locale === 'fr-CA' ? french : env.browser).page();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    return { page, problems };
  }

  /** The page as a person reads it: its language, title and visible text (spaces made plain). */
  async function read(page: Page) {
    return {
      lang: await page.locator('html').getAttribute('lang'),
      title: plain(await page.title()),
      text: plain(await shown(page.locator('body'))),
    };
  }

  /** The French page shows no word of the English one but names, codes and shared words. */
  function expectNoEnglish(
    fr: { title: string; text: string },
    en: { title: string; text: string },
    data: string[],
  ) {
    const french = wordsOf(`${fr.title}\n${fr.text}`, data);
    const english = wordsOf(`${en.title}\n${en.text}`, data);
    const leftInEnglish = [...english].filter((w) => french.has(w) && !SHARED.has(w));
    expect(leftInEnglish).toEqual([]);
  }

  /** The link of the newest email of `kind` to `to`, on our listening server. */
  async function linkOfLastMail(to: string, kind: string): Promise<string> {
    await env.t.app.jobs.runOnce();
    const [row] = await env.database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, to), eq(outbox.kind, kind)))
      .orderBy(desc(outbox.createdAt))
      .limit(1);
    const [file] = (await emlFiles(env.t)).filter((f) => f.endsWith(`-${row!.id}.eml`));
    const mail = parseEml(await readFile(path.join(env.t.config.dataDir, 'mail', file!), 'utf8'));
    const url = /http:\/\/portage\.test\/auth\/\S+\?token=[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
    expect(url).toBeDefined();
    const u = new URL(url!);
    return `${env.base + u.pathname}?token=${u.searchParams.get('token')}`;
  }

  it('the sandbox payment page: French words, French money, no English; paid in French with 4242', async () => {
    // Two sellers shipping to Québec: two parcels, GST and QST.
    const on = await seller(env.t.api, 'ON');
    const bc = await seller(env.t.api, 'BC');
    const box = await product(env.t.api, on, { title: `Cedar box ${uniqueWord()}`, priceCents: 2500 });
    const syrup = await product(env.t.api, bc, { title: `Maple syrup ${uniqueWord()}`, priceCents: 1299 });
    const b = await buyer(env.t.api, 'fr-page');
    await addToCart(env.t.api, b, box.id, 2);
    await addToCart(env.t.api, b, syrup.id, 1);
    const session = await openCheckout(env.t.api, b, QC_ADDRESS);
    const url = env.base + new URL(session.sessionUrl).pathname;
    const data = [box.title, syrup.title, QC_ADDRESS.city, 'QC', 'ON', 'BC'];

    const en = await tab('en-CA');
    expect((await en.page.goto(url))?.status()).toBe(200);
    const english = await read(en.page);
    expect(english.lang).toBe('en-CA');
    expect(english.title).toBe('Pay for your Portage order');
    expect(english.text).toContain('Order summary');
    expect(english.text).toContain(formatMoney('en-CA', session.totalCents));

    const fr = await tab('fr-CA');
    expect((await fr.page.goto(url))?.status()).toBe(200);
    const french = await read(fr.page);
    expect(french.lang).toBe('fr-CA');
    expect(french.title).toBe('Payez votre commande Portage');
    for (const words of [
      'Paiement',
      'Résumé de la commande',
      'Sous-total',
      'Livraison',
      'TPS 5 %',
      'TVQ 9,975 %',
      'Numéro de carte',
      'Nom sur la carte',
      'Bac à sable : aucun argent réel n’est débité',
      `${box.title} × 2`,
    ]) {
      expect(french.text).toContain(words);
    }
    // (Captions are shown in capitals.)
    expect(french.text).toMatch(/colis 1 sur 2 : expédié depuis/i);
    // The hold ends on the buyer's clock: a Quebec address reads Eastern time.
    expect(french.text).toMatch(/réservés jusqu’à \d\d h \d\d H[NA]E\b/);
    expect(english.text).toMatch(/reserved until \d\d:\d\d E[SD]T\b/);
    // Money as French writes it: 91,52 $.
    const total = plain(formatMoney('fr-CA', session.totalCents));
    expect(total).toMatch(/^\d[\d ]*,\d\d \$$/);
    expect(french.text).toContain(`Montant à payer : ${total} CAD`);
    expect(plain(await shown(fr.page.getByTestId('total')))).toBe(total);
    expect(french.text).not.toContain(formatMoney('en-CA', session.totalCents));
    expectNoEnglish(french, english, data);

    // The language switch: the French page links to the English one, and back.
    await fr.page.getByRole('link', { name: 'English' }).click();
    await fr.page.getByRole('heading', { name: 'Order summary' }).waitFor();
    expect(await fr.page.locator('html').getAttribute('lang')).toBe('en-CA');
    await fr.page.getByRole('link', { name: 'Français' }).click();
    await fr.page.getByRole('heading', { name: 'Résumé de la commande' }).waitFor();

    // A declined card is refused in French, on the French page.
    await fr.page.getByLabel('Numéro de carte').fill('4000 0000 0000 0002');
    const [declined] = await Promise.all([
      fr.page.waitForResponse((r) => r.url().endsWith('/pay')),
      fr.page.getByRole('button', { name: `Payer ${total}` }).click(),
    ]);
    expect(declined.status()).toBe(400);
    expect(plain(await shown(fr.page.getByRole('alert')))).toBe(
      plain(t('fr-CA', 'error.payments.sandboxDeclined')),
    );
    expect(await fr.page.locator('html').getAttribute('lang')).toBe('fr-CA');

    // Paid with 4242 on the French page: the confirmation is French.
    await fr.page.getByLabel('Numéro de carte').fill('4242 4242 4242 4242');
    await fr.page.getByLabel('Nom sur la carte').fill('Ada Tremblay');
    const [paid] = await Promise.all([
      fr.page.waitForResponse((r) => r.url().endsWith('/pay')),
      fr.page.getByRole('button', { name: `Payer ${total}` }).click(),
    ]);
    expect(paid.status()).toBe(200);
    await fr.page.getByRole('heading', { name: 'Paiement reçu : merci!' }).waitFor();
    const receipt = await read(fr.page);
    expect(receipt.lang).toBe('fr-CA');
    expect(receipt.title).toBe('Paiement reçu');
    expect(receipt.text).toContain(`Vous avez payé ${total}. Vos commandes sont confirmées :`);
    expect(receipt.text).toContain('Un courriel de confirmation est en route.');
    await expect(fr.page.getByTestId('order-id').count()).resolves.toBe(2);
    // The English confirmation (the same link, now paid) shares no words with it either.
    await en.page.goto(url);
    await en.page.getByRole('heading', { name: 'Payment received: thank you!' }).waitFor();
    const ids = await en.page.getByTestId('order-id').allInnerTexts();
    expectNoEnglish(receipt, await read(en.page), [...data, ...ids]);

    expect(fr.problems).toEqual([]);
    expect(en.problems).toEqual([]);
    await fr.page.close();
    await en.page.close();
  });

  it('the sign-in and consent pages: French words, no English, and the French consent works', async () => {
    const shopper = await buyer(env.t.api, 'fr-consent');
    const agentName = 'Aisle Assistant';
    const agentServer = 'http://127.0.0.1:9/callback';
    const { clientId } = await registerClient(env.t.api, {
      client_name: agentName,
      redirect_uris: [agentServer],
    });
    const data = [agentName, shopper.email, '127.0.0.1', 'shop', 'orders'];

    async function toConsent(locale: Locale) {
      const { page, problems } = await tab(locale);
      const url = authorizeUrl({
        clientId,
        challenge: pkce().challenge,
        method: 'S256',
        redirectUri: agentServer,
        scope: 'shop orders',
      });
      expect((await page.goto(env.base + url))?.status()).toBe(200);
      const signIn = await read(page);
      const email = locale === 'fr-CA' ? 'Courriel' : 'Email';
      const password = locale === 'fr-CA' ? 'Mot de passe' : 'Password';
      await page.getByLabel(email).fill(shopper.email);
      await page.getByLabel(password).fill(shopper.password);
      await page.getByRole('button', { name: locale === 'fr-CA' ? 'Se connecter' : 'Sign in' }).click();
      await page.waitForURL((u) => u.pathname === '/oauth/consent');
      return { page, problems, signIn, consent: await read(page) };
    }

    const en = await toConsent('en-CA');
    expect(en.signIn.lang).toBe('en-CA');
    expect(en.signIn.text).toContain(`Sign in to connect ${agentName}`);
    expect(en.consent.text).toContain(`Allow ${agentName} to use your account?`);

    const fr = await toConsent('fr-CA');
    expect(fr.signIn.lang).toBe('fr-CA');
    expect(fr.signIn.title).toBe('Connexion à Portage');
    expect(fr.signIn.text).toContain(`Connectez-vous pour relier ${agentName}`);
    expectNoEnglish(fr.signIn, en.signIn, data);

    expect(fr.consent.lang).toBe('fr-CA');
    expect(fr.consent.title).toBe(`Autoriser ${agentName}?`);
    for (const words of [
      `Autoriser ${agentName} à utiliser votre compte?`,
      `Session ouverte sous ${shopper.email}. ${agentName} pourra :`,
      'chercher des produits, vérifier les stocks, remplir votre panier',
      'voir et annuler vos commandes',
      'Vous reviendrez ensuite à 127.0.0.1:9.',
      'Cet agent s’est inscrit lui-même : Portage n’a pas vérifié son nom.',
    ]) {
      expect(fr.consent.text).toContain(words);
    }
    expectNoEnglish(fr.consent, en.consent, [...data, '127.0.0.1:9']);

    // The French consent's Deny goes back to the agent as any consent does.
    const [leaving] = await Promise.all([
      fr.page.waitForRequest((r) => r.url().startsWith(agentServer)),
      fr.page.getByRole('button', { name: 'Refuser' }).click(),
    ]);
    expect(new URL(leaving.url()).searchParams.get('error')).toBe('access_denied');
    expect(fr.problems).toEqual([]);
    expect(en.problems).toEqual([]);
    await fr.page.close();
    await en.page.close();
  });

  it('the email verification and password reset pages: French words, no English, French refusals', async () => {
    const b = await buyer(env.t.api, 'fr-account');
    const verify = await linkOfLastMail(b.email, 'email-verify');

    const en = await tab('en-CA');
    expect((await en.page.goto(verify))?.status()).toBe(200);
    const verifyEn = await read(en.page);
    expect(verifyEn.text).toContain('Confirm your email address');

    const fr = await tab('fr-CA');
    expect((await fr.page.goto(verify))?.status()).toBe(200);
    const verifyFr = await read(fr.page);
    expect(verifyFr.lang).toBe('fr-CA');
    expect(verifyFr.title).toBe('Confirmez votre adresse courriel');
    expect(verifyFr.text).toContain(
      'Appuyez sur le bouton pour confirmer que cette adresse courriel est bien la vôtre.',
    );
    expectNoEnglish(verifyFr, verifyEn, []);
    await fr.page.getByRole('button', { name: 'Confirmer mon adresse courriel' }).click();
    await fr.page.getByRole('heading', { name: 'Adresse courriel confirmée' }).waitFor();
    expect((await env.t.api.as(b).get('/me')).body.emailVerified).toBe(true);
    // Used, the link says so in French (and in English, in no shared words).
    expect((await fr.page.goto(verify))?.status()).toBe(400);
    const usedFr = await read(fr.page);
    expect(usedFr.text).toContain('Ce lien ne fonctionne pas');
    await en.page.goto(verify);
    expectNoEnglish(usedFr, await read(en.page), []);

    expect((await env.t.api.post('/auth/password/forgot', { email: b.email })).status).toBe(202);
    const reset = await linkOfLastMail(b.email, 'password-reset');
    expect((await en.page.goto(reset))?.status()).toBe(200);
    const resetEn = await read(en.page);
    expect(resetEn.text).toContain('Choose a new password');
    expect((await fr.page.goto(reset))?.status()).toBe(200);
    const resetFr = await read(fr.page);
    expect(resetFr.lang).toBe('fr-CA');
    expect(resetFr.title).toBe('Choisissez un nouveau mot de passe');
    for (const words of ['Nouveau mot de passe', 'Au moins 8 caractères.', 'Tous les appareils connectés']) {
      expect(resetFr.text).toContain(words);
    }
    expectNoEnglish(resetFr, resetEn, []);

    // Two different passwords: refused in French, on the French form.
    await fr.page.getByLabel('Nouveau mot de passe', { exact: true }).fill('mon nouveau mot de passe');
    await fr.page.getByLabel('Confirmez le nouveau mot de passe').fill('un autre mot de passe');
    await fr.page.getByRole('button', { name: 'Enregistrer mon nouveau mot de passe' }).click();
    await expect(shown(fr.page.getByRole('alert'))).resolves.toBe(t('fr-CA', 'error.auth.passwordsDiffer'));
    expect(await fr.page.locator('html').getAttribute('lang')).toBe('fr-CA');
    await fr.page.getByLabel('Nouveau mot de passe', { exact: true }).fill('mon nouveau mot de passe');
    await fr.page.getByLabel('Confirmez le nouveau mot de passe').fill('mon nouveau mot de passe');
    await fr.page.getByRole('button', { name: 'Enregistrer mon nouveau mot de passe' }).click();
    await fr.page.getByRole('heading', { name: 'Votre mot de passe a été changé' }).waitFor();
    expect(
      (await env.t.api.post('/auth/login', { email: b.email, password: 'mon nouveau mot de passe' })).status,
    ).toBe(200);

    expect(fr.problems).toEqual([]);
    expect(en.problems).toEqual([]);
    await fr.page.close();
    await en.page.close();
  });
});
