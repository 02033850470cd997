// Every email in French and in English (issue 24): each kind rendered in both locales, with the
// French words a Québécois reader expects and none of the English ones; and the rule that picks
// a recipient's language, through the real purchase, order, return and account flows over HTTP:
// the saved preference, else French for an order shipped to Quebec, else the recipient's own
// request's Accept-Language, else the platform's default (src/modules/mail/locale.ts).
import { and, desc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, t as say } from '../src/contract/i18n.ts';
import { ORDER_STATUSES } from '../src/contract/orders.ts';
import { users } from '../src/modules/auth/tables.ts';
import {
  passwordResetEmail,
  verifyBeforeResetEmail,
  verifyEmailEmail,
} from '../src/modules/mail/account-templates.ts';
import {
  returnApprovedEmail,
  returnRefundedEmail,
  returnRejectedEmail,
  returnRequestedEmail,
} from '../src/modules/mail/return-templates.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import {
  type OrderMailOrder,
  orderCancelledEmail,
  orderPaidEmail,
  orderRefundedEmail,
  orderShippedEmail,
  paymentRefundedEmail,
  type RenderedMail,
} from '../src/modules/mail/templates.ts';
import { orderMachine, type TransitionName } from '../src/modules/orders/states.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, seller } from './helpers/builders.ts';
import { ON_ADDRESS, openCheckout, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { mailAddress, onMailOrder, qcMailOrder } from './helpers/mail-orders.ts';
import {
  cancelledOrder,
  deliveredOrder,
  filledCart,
  outboxRows,
  paidOrder,
  refundedReturn,
  refundRows,
  rejectedReturn,
  requestedReturn,
  setClock,
  ship,
} from './helpers/orders.ts';

const FR = { 'accept-language': 'fr-CA,fr;q=0.9' };
const EN = { 'accept-language': 'en-CA,en;q=0.9' };
const NBSP = '\u00a0';

/** The whole of an email: what a person reads of it, subject included. */
const all = (m: RenderedMail) => `${m.subject}\n${m.text}\n${m.html}`;

/**
 * The French email says `french` and none of `english`, which the English one says; neither
 * writes money the other's way, and each declares its language.
 */
function expectBoth(en: RenderedMail, fr: RenderedMail, english: string[], french: string[]) {
  for (const w of english) expect(all(en), `English: ${w}`).toContain(w);
  for (const w of english) expect(all(fr), `no English in French: ${w}`).not.toContain(w);
  for (const w of french) expect(all(fr), `French: ${w}`).toContain(w);
  expect(en.html).toContain('<html lang="en-CA">');
  expect(fr.html).toContain('<html lang="fr-CA">');
  expect(all(fr)).not.toMatch(/\$\d/); // "$57.04" is English; French writes "57,04 $"
  expect(all(en)).not.toMatch(/\d,\d\d\u00a0\$/);
  // The greeting of each.
  expect(en.text).toMatch(/^Hello /);
  expect(fr.text).toMatch(/^Bonjour /);
}

const address = mailAddress;

/** The template tests' Ontario order, its first line in French. */
const onOrder = (over: Partial<OrderMailOrder> = {}): OrderMailOrder =>
  onMailOrder({
    items: [
      { name: 'Chaussettes de laine', quantity: 2, unitPriceCents: 1250 },
      { name: 'Tuque', quantity: 1, unitPriceCents: 1999 },
    ],
    ...over,
  });

const qcOrder = () => qcMailOrder({ ...address, province: 'QC', city: 'Montréal' });

const invoiced = (o: OrderMailOrder) => ({ ...o, invoiceUrl: `http://portage.test/orders/${o.id}/invoice` });

describe('each email in both locales', () => {
  it('paid: every line, tax names (TPS, TVQ, TVH), money, dates and the invoice link of each order', () => {
    const data = { buyerName: 'Ada', orders: [invoiced(onOrder()), invoiced(qcOrder())], totalCents: 9157 };
    const en = orderPaidEmail(data, 'en-CA');
    const fr = orderPaidEmail(data, 'fr-CA');
    expectBoth(
      en,
      fr,
      [
        'Your Portage order is confirmed: $91.57',
        'Thank you for your order',
        'payment',
        'for 2 orders (one per seller)',
        'order number',
        'Subtotal',
        'Discount',
        'Shipping',
        'Free',
        'HST 13%',
        'GST 5%',
        'QST 9.975%',
        'Estimated delivery',
        'Ships to',
        'Download your invoice',
        'Total paid',
        'Tracking details will follow',
        'From Maple Goods',
      ],
      [
        `Votre commande Portage est confirmée : 91,57${NBSP}$`,
        'Merci de votre commande',
        'pour 2 commandes (une par vendeur)',
        'Chez Maple Goods (numéro de commande 2026-000101)',
        `  2 × Chaussettes de laine à 12,50${NBSP}$ : 25,00${NBSP}$`,
        `  Sous-total : 44,99${NBSP}$`,
        `  Rabais : -4,50${NBSP}$`,
        `  Livraison : 9,99${NBSP}$`,
        `  TVH 13 % : 6,56${NBSP}$`,
        `  TPS 5 % : 1,50${NBSP}$`,
        `  TVQ 9,975 % : 3,00${NBSP}$`,
        '  Livraison : Gratuite',
        `  Total : 57,04${NBSP}$`,
        '  Livraison prévue : 28 novembre 2026',
        '  Livraison prévue : 30 novembre 2026',
        '  Adresse de livraison : 100 Queen St W, Montréal QC M5H 2N2, CA',
        '  Télécharger votre facture : http://portage.test/orders/ord_on1/invoice',
        '<a href="http://portage.test/orders/ord_qc1/invoice">Télécharger votre facture</a>',
        `Total payé : 91,57${NBSP}$`,
        'Les détails de suivi suivront lors de l’expédition.',
      ],
    );
    // One invoice link per order, in both parts.
    for (const m of [en, fr]) {
      for (const id of ['ord_on1', 'ord_qc1']) {
        const url = `http://portage.test/orders/${id}/invoice`;
        expect(m.text.split(url)).toHaveLength(2);
        expect(m.html.split(`href="${url}"`)).toHaveLength(2);
      }
    }
    expect(en.html).toContain(
      '<a href="http://portage.test/orders/ord_on1/invoice">Download your invoice</a>',
    );
    // One order: no "for 1 orders".
    const one = orderPaidEmail({ buyerName: 'Ada', orders: [onOrder()], totalCents: 5704 }, 'fr-CA');
    expect(one.text).toContain(`Nous avons bien reçu votre paiement de 57,04${NBSP}$.`);
  });

  it('shipped: the carrier, the tracking number and Canada Post’s French tracking page', () => {
    const data = { buyerName: 'Ada', order: onOrder({ trackingNumber: '1Z999AA1', carrier: 'Canada Post' }) };
    const en = orderShippedEmail(data, 'en-CA');
    const fr = orderShippedEmail(data, 'fr-CA');
    expectBoth(
      en,
      fr,
      [
        'Your Chaussettes de laine and 1 more item from Maple Goods has shipped',
        'is on its way',
        'Carrier:',
        'Tracking number',
        'Track it',
        '/track-reperage/en#',
        'Estimated delivery: November 28, 2026',
        'Ships to',
        'Order number',
      ],
      [
        'Votre commande de Chaussettes de laine et 1 autre article chez Maple Goods a été expédiée',
        'est en route.',
        'Transporteur : Canada Post',
        'Numéro de suivi : 1Z999AA1',
        'Suivre le colis : https://www.canadapost-postescanada.ca/track-reperage/fr#/details/1Z999AA1',
        'Livraison prévue : 28 novembre 2026',
        'Numéro de commande : 2026-000101',
      ],
    );
    const unknown = orderShippedEmail({ buyerName: '', order: onOrder() }, 'fr-CA');
    expect(unknown.text).toMatch(/^Bonjour,\n/);
    expect(unknown.text).toContain('Transporteur : non indiqué\nNuméro de suivi : non indiqué');
  });

  it('cancelled and refunded', () => {
    const cancel = { buyerName: 'Ada', order: onOrder(), reason: 'Rupture de stock', refundCents: 5704 };
    expectBoth(
      orderCancelledEmail(cancel, 'en-CA'),
      orderCancelledEmail(cancel, 'fr-CA'),
      [
        'was cancelled',
        'Reason:',
        'A refund of $57.04',
        'original payment method',
        'business days',
        'Subtotal',
      ],
      [
        'Votre commande de Chaussettes de laine et 1 autre article chez Maple Goods a été annulée',
        'Motif : Rupture de stock',
        `Un remboursement de 57,04${NBSP}$ sera versé sur votre mode de paiement d’origine`,
        'de 5 à 10 jours ouvrables',
        'Sous-total',
      ],
    );
    const free = orderCancelledEmail({ ...cancel, refundCents: 0 }, 'fr-CA');
    expect(free.text).toContain('Rien n’a été facturé pour cette commande');

    const refund = { buyerName: 'Ada', order: onOrder(), refundCents: 1999 };
    expectBoth(
      orderRefundedEmail(refund, 'en-CA'),
      orderRefundedEmail(refund, 'fr-CA'),
      ['Refund of $19.99 for your', 'We refunded', 'original payment method', 'from Maple Goods'],
      [
        `Remboursement de 19,99${NBSP}$ pour votre commande de Chaussettes de laine et 1 autre article chez Maple Goods`,
        `Nous avons remboursé 19,99${NBSP}$`,
        'mode de paiement d’origine',
      ],
    );
  });

  it('a payment that made no order, refunded (checkout ended; coupon used up)', () => {
    for (const reason of ['checkout_closed', 'coupon_used_up'] as const) {
      const data = { buyerName: 'Ada', amountCents: 123456, reason };
      expectBoth(
        paymentRefundedEmail(data, 'en-CA'),
        paymentRefundedEmail(data, 'fr-CA'),
        ['Your payment of $1,234.56 is being refunded', 'so it made no order', 'Nothing else is charged'],
        [
          `Votre paiement de 1${NBSP}234,56${NBSP}$ est en cours de remboursement`,
          'il n’a donc créé aucune commande',
          'Rien d’autre n’est facturé.',
          reason === 'checkout_closed' ? 'passage à la caisse' : 'coupon',
        ],
      );
    }
  });

  /** The return the template tests write about. */
  const RETURN = {
    returnId: 'ret_1',
    orderNumber: '2026-000001',
    items: [
      { name: 'Boîte de cèdre', quantity: 2 },
      { name: 'Tuque', quantity: 1 },
    ],
    wholeOrder: true,
  };

  it('return approved, rejected and refunded', () => {
    const base = { ...RETURN, buyerName: 'Ada' };
    const approved = { ...base, refundCents: 5536, note: 'Merci' };
    expectBoth(
      returnApprovedEmail(approved, 'en-CA'),
      returnApprovedEmail(approved, 'fr-CA'),
      [
        'Your return of Boîte de cèdre and 1 more item is approved',
        'The seller approved your return',
        '(the whole order)',
        'A refund of $55.36',
        'Note from the seller',
        'Items returned',
        'Return number ret_1, order number 2026-000001.',
      ],
      [
        'Votre retour de Boîte de cèdre et 1 autre article est approuvé',
        'Le vendeur a approuvé votre retour de Boîte de cèdre et 1 autre article (la commande entière).',
        `Un remboursement de 55,36${NBSP}$ est en route`,
        'Note du vendeur : Merci',
        'Articles retournés :',
        '<li>2 × Boîte de cèdre</li>',
        'Numéro de retour ret_1, numéro de commande 2026-000001.',
      ],
    );
    const nothing = returnApprovedEmail({ ...approved, refundCents: 0, note: null }, 'fr-CA');
    expect(nothing.text).toContain('déjà été remboursé');
    expect(nothing.text).not.toContain('Note du vendeur');

    const rejected = { ...base, wholeOrder: false, note: 'Hors politique\n<b>non</b>' };
    expectBoth(
      returnRejectedEmail(rejected, 'en-CA'),
      returnRejectedEmail(rejected, 'fr-CA'),
      [
        'was not accepted',
        'The seller did not accept',
        '(part of an order)',
        'Reason given',
        'Nothing was refunded',
      ],
      [
        'Votre retour de Boîte de cèdre et 1 autre article n’a pas été accepté',
        'Le vendeur n’a pas accepté votre retour',
        '(une partie d’une commande)',
        'Motif indiqué : Hors politique<br>&#60;b&#62;non&#60;/b&#62;',
        'Rien n’a été remboursé.',
      ],
    );

    const refunded = { ...base, refundCents: 5536 };
    expectBoth(
      returnRefundedEmail(refunded, 'en-CA'),
      returnRefundedEmail(refunded, 'fr-CA'),
      [
        'Refund of $55.36 for your return of',
        'We refunded $55.36 for your return',
        'original payment method',
      ],
      [
        `Remboursement de 55,36${NBSP}$ pour votre retour de Boîte de cèdre et 1 autre article`,
        `Nous avons remboursé 55,36${NBSP}$ pour votre retour de`,
        'jours ouvrables',
      ],
    );
  });

  it("return requested: the seller's email, with the reason, the buyer's words and the estimate", () => {
    const asked = {
      ...RETURN,
      sellerName: 'Maple Goods',
      wholeOrder: false,
      reason: 'damaged' as const,
      description: 'Le couvercle est fendu\n<b>voir photo</b>',
      estimatedRefundCents: 5536,
      url: 'http://portage.test/console/returns/ret_1',
    };
    const en = returnRequestedEmail(asked, 'en-CA');
    const fr = returnRequestedEmail(asked, 'fr-CA');
    expectBoth(
      en,
      fr,
      [
        'Return requested on order 2026-000001: Boîte de cèdre and 1 more item',
        'Hello Maple Goods',
        'A buyer asks to return part of order 2026-000001.',
        'Reason: Arrived damaged',
        'Items to return:',
        'If you approve it, the refund will be $55.36 (an estimate).',
        'Open the return: http://portage.test/console/returns/ret_1',
      ],
      [
        'Retour demandé sur la commande 2026-000001 : Boîte de cèdre et 1 autre article',
        'Un acheteur demande à retourner une partie de la commande 2026-000001.',
        'Motif : Arrivé endommagé',
        // The buyer's words, escaped, their line break kept.
        'Selon l’acheteur : Le couvercle est fendu<br>&#60;b&#62;voir photo&#60;/b&#62;',
        '<li>2 × Boîte de cèdre</li>',
        `le remboursement sera de 55,36${NBSP}$`,
        'Numéro de retour ret_1, numéro de commande 2026-000001.',
        '<a href="http://portage.test/console/returns/ret_1">Ouvrir le retour</a>',
      ],
    );
    const whole = returnRequestedEmail({ ...asked, wholeOrder: true, description: null }, 'en-CA');
    expect(whole.text).toContain('A buyer asks to return all of order 2026-000001.');
    expect(whole.text).not.toContain('In the buyer’s words');
  });

  it('email verification, password reset, and verification before a reset', () => {
    const url = 'http://portage.test/auth/email/verify?token=abc';
    const verify = { name: 'Ada', url, validForSeconds: 48 * 3600 };
    expectBoth(
      verifyEmailEmail(verify, 'en-CA'),
      verifyEmailEmail(verify, 'fr-CA'),
      [
        'Confirm your email address for Portage',
        'Please confirm',
        'The link works once, for 48 hours.',
        'Or paste this link',
        'Confirm my email address',
        'ignore this email',
      ],
      [
        'Confirmez votre adresse courriel pour Portage',
        'Le lien ne fonctionne qu’une fois, pendant 48 heures.',
        'Ou collez ce lien dans votre navigateur :',
        '>Confirmer mon adresse courriel</a>',
        'ignorez ce courriel',
        url,
      ],
    );
    const reset = { name: 'Ada', url, validForSeconds: 30 * 60 };
    expectBoth(
      passwordResetEmail(reset, 'en-CA'),
      passwordResetEmail(reset, 'fr-CA'),
      [
        'Reset your Portage password',
        'Someone (we hope you)',
        'Choose a new password',
        'signed out',
        'ignore this email',
      ],
      [
        'Réinitialisez votre mot de passe Portage',
        'Quelqu’un (vous, nous l’espérons)',
        'pendant 30 minutes',
        '>Choisir un nouveau mot de passe</a>',
        'votre mot de passe reste inchangé',
      ],
    );
    expectBoth(
      verifyBeforeResetEmail(verify, 'en-CA'),
      verifyBeforeResetEmail(verify, 'fr-CA'),
      [
        'Confirm your email address to reset your Portage password',
        'is not confirmed yet',
        'then ask for a password reset again',
      ],
      [
        'Confirmez votre adresse courriel pour réinitialiser votre mot de passe Portage',
        'n’est pas encore confirmée',
        'puis demandez de nouveau la réinitialisation',
      ],
    );
  });

  it('an order’s refusals are catalogue messages, said in both languages', () => {
    for (const name of Object.keys(orderMachine.transitions) as TransitionName[]) {
      for (const status of ORDER_STATUSES) {
        const refused = orderMachine.refusal(name, status);
        expect(Object.keys(CATALOGUES['en-CA'])).toContain(refused.key);
        expect(Object.keys(CATALOGUES['fr-CA'])).toContain(refused.key);
        expect(say('en-CA', refused.key, refused.values)).toMatch(/order/i);
        expect(say('fr-CA', refused.key, refused.values)).not.toMatch(/\b(Only|order|this one)\b/);
      }
    }
  });
});

describe('the language of each recipient', () => {
  const { t, database } = useTestApp();

  const setLocale = (who: SignedIn, locale: 'en-CA' | 'fr-CA' | null) =>
    database.db.update(users).set({ locale }).where(eq(users.id, who.id));

  async function mailOf(prefix: string) {
    // A seller's email is queued as a notice: the notices job writes it.
    await t.app.jobs.runOnce('notices');
    const rows = await outboxRows(database, prefix);
    expect(rows, prefix).toHaveLength(1);
    const [row] = rows;
    return { subject: row!.subject, text: row!.textBody, html: row!.htmlBody, to: row!.toAddress };
  }

  const isFrench = (m: RenderedMail) => {
    expect(m.html).toContain('<html lang="fr-CA">');
    expect(m.text).toMatch(/^Bonjour /);
    expect(all(m)).not.toMatch(/\b(Hello|Your|order number|Thank you|We refunded)\b/);
  };
  const isEnglish = (m: RenderedMail) => {
    expect(m.html).toContain('<html lang="en-CA">');
    expect(m.text).toMatch(/^Hello /);
    expect(all(m)).not.toMatch(/\b(Bonjour|Votre|commande)\b/);
  };

  /** A cart of `opts.buyer` (new unless given) checked out to `shipTo` and paid: the order id and the paid email. */
  async function buy(shipTo: typeof ON_ADDRESS, who?: SignedIn) {
    const cart = await filledCart(t, who ? { buyer: who } : {});
    const session = await openCheckout(t.api, cart.buyer, shipTo);
    const [orderId] = await payOk(t.api, session.sessionId);
    return { ...cart, orderId: orderId!, mail: await mailOf(`order-paid:${session.sessionId}`) };
  }

  it('a Quebec buyer with no preference reads the paid email in French, with the link to each invoice', async () => {
    const { buyer: b, orderId, mail } = await buy(QC_ADDRESS);
    expect(mail.to).toBe(b.email);
    isFrench(mail);
    expect(mail.subject).toMatch(/^Votre commande Portage est confirmée : \d+,\d\d\u00a0\$$/);
    expect(mail.text).toContain('  TPS 5 % : ');
    expect(mail.text).toContain('  TVQ 9,975 % : ');
    // The signed link (invoices/links.ts) of this order, in the email's language.
    const link = `http://portage.test/invoices/${orderId.slice('orders:'.length)}\\.[\\w.-]+`;
    expect(mail.text).toMatch(new RegExp(`  Télécharger votre facture : ${link}\\?locale=fr-CA\\n`));
    // The href as a mail reader reads it (the template writes = as &#61;).
    expect(mail.html.replaceAll('&#61;', '=')).toMatch(
      new RegExp(`<a href="${link}\\?locale=fr-CA">Télécharger votre facture</a>`),
    );
    expect(mail.text).not.toMatch(/\b(GST|QST|Subtotal|Shipping|Estimated delivery|Download)\b/);
  });

  it('a buyer who saved en-CA reads English though the order ships to Quebec', async () => {
    const b = await buyer(t.api, 'anglo');
    await setLocale(b, 'en-CA');
    const { orderId, mail } = await buy(QC_ADDRESS, b);
    isEnglish(mail);
    expect(mail.subject).toMatch(/^Your Portage order is confirmed: \$\d+\.\d\d$/);
    expect(mail.text).toContain('  GST 5%: ');
    expect(mail.text).toContain('  QST 9.975%: ');
    expect(mail.text).toMatch(
      new RegExp(
        `  Download your invoice: http://portage.test/invoices/${orderId.slice('orders:'.length)}\\.[\\w.-]+\\?locale=en-CA\\n`,
      ),
    );
  });

  it('a preference saved in the database (fr-CA) gives French to an Ontario buyer, for every email of the order', async () => {
    const b = await buyer(t.api, 'franco');
    await setLocale(b, 'fr-CA');
    const paid = await buy(ON_ADDRESS, b);
    isFrench(paid.mail);
    expect(paid.mail.text).toContain('  TVH 13 % : ');

    // The seller ships, in English: the buyer's email stays French.
    const shipped = await t.api
      .as(paid.seller)
      .post(`/orders/${paid.orderId}/ship`, { trackingNumber: '1Z 999', carrier: 'Canada Post' }, EN);
    expect(shipped.status).toBe(200);
    const shippedMail = await mailOf(`order-shipped:${paid.orderId}`);
    isFrench(shippedMail);
    expect(shippedMail.subject).toContain('a été expédiée');
    expect(shippedMail.text).toContain('Transporteur : Canada Post');

    // Cancelled and refunded, by the seller.
    const c = await cancelledOrder(t, { buyer: b, by: 'seller', reason: 'Rupture de stock' });
    const cancelled = await mailOf(`order-cancelled:${c.orderId}`);
    isFrench(cancelled);
    expect(cancelled.text).toContain('Motif : Rupture de stock');
    const [refund] = await refundRows(database, c.orderId);
    const refunded = await mailOf(`refund:${refund!.id}`);
    isFrench(refunded);
    expect(refunded.subject).toMatch(/^Remboursement de /);
  });

  it('return emails follow the same rule: French for a Quebec buyer, and for a saved fr-CA', async () => {
    const franco = await buyer(t.api, 'retour');
    await setLocale(franco, 'fr-CA');
    const r = await refundedReturn(t, { buyer: franco, note: 'Désolé' });
    const approved = await mailOf(`return-approved:${r.returnId}`);
    isFrench(approved);
    expect(approved.subject).toMatch(/^Votre retour de .* est approuvé$/);
    expect(approved.text).toContain('Note du vendeur : Désolé');
    const refunded = await mailOf(`return-refunded:${r.returnId}`);
    isFrench(refunded);
    expect(refunded.subject).toMatch(/^Remboursement de \d+,\d\d\u00a0\$ pour votre retour de /);

    // A Quebec buyer with no preference: the order ships to QC.
    const qc = await buyer(t.api, 'quebec');
    const order = await buy(QC_ADDRESS, qc);
    await ship(t, order.seller, order.orderId);
    expect((await t.api.as(order.seller).post(`/orders/${order.orderId}/deliver`)).status).toBe(200);
    const asked = await t.api.as(qc).post('/returns', { order_id: order.orderId, reason: 'damaged' }, EN);
    expect(asked.status).toBe(201);
    const rejected = await t.api
      .as(order.seller)
      .post(`/returns/${asked.body.return_id}/reject`, { note: 'Hors délai' }, EN);
    expect(rejected.status).toBe(200);
    const mail = await mailOf(`return-rejected:${asked.body.return_id}`);
    isFrench(mail);
    expect(mail.text).toContain('Motif indiqué : Hors délai');

    // And an Ontario buyer with no preference: English (the platform's default).
    const anglo = await rejectedReturn(t, {});
    isEnglish(await mailOf(`return-rejected:${anglo.returnId}`));
  });

  it("a return asked for: the seller's email, in the seller's language, whatever the buyer's", async () => {
    const franco = await seller(t.api);
    await setLocale(franco, 'fr-CA');
    const r = await requestedReturn(t, {
      seller: franco,
      reason: 'wrong_item',
      description: 'Mauvaise taille',
    });
    const mail = await mailOf(`return-requested:${r.returnId}`);
    expect(mail.to).toBe(franco.email);
    isFrench(mail);
    expect(mail.subject).toMatch(/^Retour demandé sur la commande \d{4}-\d{6} : /);
    expect(mail.text).toContain('Motif : Mauvais article');
    expect(mail.text).toContain('Selon l’acheteur : Mauvaise taille');
    expect(mail.text).toContain(
      `Ouvrir le retour : http://portage.test/console/returns/${encodeURIComponent(r.returnId)}`,
    );
    // The buyer's address and name are not in it.
    const order = await t.api.as(r.buyer).get(`/orders/${r.orderId}`);
    expect(all(mail)).not.toContain(order.body.shippingAddress.street);
    expect(all(mail)).not.toContain(r.buyer.email);

    // A seller with no preference, the buyer asking in French: English, the platform's default.
    const anglo = await deliveredOrder(t, {});
    const asked = await t.api
      .as(anglo.buyer)
      .post('/returns', { order_id: anglo.orderId, reason: 'other' }, FR);
    expect(asked.status).toBe(201);
    isEnglish(await mailOf(`return-requested:${asked.body.return_id}`));
  });

  it('without a preference, a person’s own request speaks for them; someone else’s does not', async () => {
    // The buyer cancels, in French: the cancellation email is French.
    const own = await paidOrder(t);
    const res = await t.api.as(own.buyer).post(`/orders/${own.orderId}/cancel`, {}, FR);
    expect(res.status).toBe(200);
    isFrench(await mailOf(`order-cancelled:${own.orderId}`));

    // The seller ships in French to an Ontario buyer with no preference: English.
    const other = await paidOrder(t);
    expect(
      (
        await t.api
          .as(other.seller)
          .post(`/orders/${other.orderId}/ship`, { trackingNumber: 'T1', carrier: 'UPS' }, FR)
      ).status,
    ).toBe(200);
    isEnglish(await mailOf(`order-shipped:${other.orderId}`));
  });

  it('answers an order’s refusal in the language of the request', async () => {
    const d = await deliveredOrder(t);
    const res = await t.api.as(d.buyer).post(`/orders/${d.orderId}/cancel`, {}, FR);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe(
      'La commande a été livrée et ne peut plus être annulée; demandez plutôt un retour (request_return)',
    );
    const foreign = await t.api
      .as(d.buyer)
      .post('/returns', { order_id: d.orderId, reason: 'other', items: ['products:nope'] }, FR);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({
      error: `Produits absents de la commande ${d.orderId} : products:nope`,
      details: [{ field: 'items', message: `doivent être des produits de la commande ${d.orderId}` }],
    });
    // The same in English, word for word as before.
    const english = await t.api
      .as(d.buyer)
      .post('/returns', { order_id: d.orderId, reason: 'other', items: ['products:nope'] }, EN);
    expect(english.body.error).toBe(`Not products of order ${d.orderId}: products:nope`);
  });

  it('account emails: registration, verification resent and forgotten password honour Accept-Language', async () => {
    setClock(t, '2026-11-21T15:00:00.000Z');
    const email = `fr.${Date.now()}@example.ca`;
    const reg = await t.api.post(
      '/auth/register',
      { email, password: 'correct horse battery', name: 'Élise' },
      FR,
    );
    expect(reg.status).toBe(201);
    const lastOf = async (kind: string) => {
      const [row] = await database.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.toAddress, email), eq(outbox.kind, kind)))
        .orderBy(desc(outbox.createdAt), desc(outbox.id))
        .limit(1);
      return { subject: row!.subject, text: row!.textBody, html: row!.htmlBody };
    };
    const verify = await lastOf('email-verify');
    expect(verify.subject).toBe('Confirmez votre adresse courriel pour Portage');
    expect(verify.text).toMatch(/^Bonjour Élise,\n/);
    expect(verify.text).toContain('pendant 48 heures');
    expect(verify.html).toContain('<html lang="fr-CA">');

    t.clock.advance(1);
    const resent = await t.api.as(reg.body.token).post('/auth/email/verify/resend', undefined, FR);
    expect(resent.status).toBe(202);
    expect(resent.body.message).toBe(
      `Nous avons envoyé un nouveau lien de vérification à ${email} (valide 48 heures).`,
    );

    // Not verified yet: the reset asks to verify first, in French.
    t.clock.advance(1);
    const forgot = await t.api.post('/auth/password/forgot', { email }, FR);
    expect(forgot.status).toBe(202);
    expect(forgot.body.message).toMatch(/^Si un compte utilise cette adresse courriel/);
    const before = await lastOf('email-verify');
    expect(before.subject).toBe(
      'Confirmez votre adresse courriel pour réinitialiser votre mot de passe Portage',
    );

    // Verified, with a saved en-CA: the reset email is English whatever the request says.
    await database.db
      .update(users)
      .set({ emailVerified: true, locale: 'en-CA' })
      .where(eq(users.email, email));
    t.clock.advance(3600); // past the hourly limit of link emails (3 were sent)
    expect((await t.api.post('/auth/password/forgot', { email }, FR)).status).toBe(202);
    const reset = await lastOf('password-reset');
    expect(reset.subject).toBe('Reset your Portage password');
    expect(reset.text).toContain('The link works once, for 30 minutes.');
  });
});
