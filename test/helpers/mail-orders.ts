// An order as the email templates take it, for the template tests (mail.test.ts, i18n-mail.test.ts).
import type { OrderMailOrder } from '../../src/modules/mail/templates.ts';

export const mailAddress = {
  street: '100 Queen St W',
  city: 'Toronto',
  province: 'ON',
  postalCode: 'M5H 2N2',
  country: 'CA',
};

/** An Ontario order of two lines, HST 13%, a coupon and paid shipping; `over` changes any field. */
export function onMailOrder(over: Partial<OrderMailOrder> = {}): OrderMailOrder {
  return {
    id: 'ord_on1',
    number: '2026-000101',
    sellerName: 'Maple Goods',
    items: [
      { name: 'Wool socks', quantity: 2, unitPriceCents: 1250 },
      { name: 'Tuque', quantity: 1, unitPriceCents: 1999 },
    ],
    subtotalCents: 4499,
    discountCents: 450,
    shippingCostCents: 999,
    taxLines: [{ name: 'HST', ratePercent: 13, amountCents: 656 }],
    taxAmountCents: 656,
    totalAmountCents: 5704,
    estimatedDelivery: '2026-11-28',
    trackingNumber: null,
    carrier: null,
    shippingAddress: mailAddress,
    ...over,
  };
}

/** A Quebec seller's order of one line, GST and QST, free shipping (to `shippingAddress`). */
export const qcMailOrder = (shippingAddress = mailAddress): OrderMailOrder =>
  onMailOrder({
    id: 'ord_qc1',
    number: '2026-000102',
    sellerName: 'Boutique Québec',
    items: [{ name: 'Sirop d’érable', quantity: 3, unitPriceCents: 1001 }],
    subtotalCents: 3003,
    discountCents: 0,
    shippingCostCents: 0,
    taxLines: [
      { name: 'GST', ratePercent: 5, amountCents: 150 },
      { name: 'QST', ratePercent: 9.975, amountCents: 300 },
    ],
    taxAmountCents: 450,
    totalAmountCents: 3453,
    estimatedDelivery: '2026-11-30',
    shippingAddress,
  });
