// Placeholder until the templates land (replaced by the mail module's own).
export type OrderMailOrder = {
  id: string;
  sellerName: string;
  items: Array<{ name: string; quantity: number; unitPriceCents: number }>;
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  taxLines: Array<{ name: string; ratePercent: number; amountCents: number }>;
  taxAmountCents: number;
  totalAmountCents: number;
  estimatedDelivery: string;
  trackingNumber: string | null;
  carrier: string | null;
  shippingAddress: { street: string; city: string; province: string; postalCode: string; country: string };
};
type Mail = { subject: string; text: string; html: string };
const plain = (subject: string, text: string): Mail => ({ subject, text, html: `<pre>${text}</pre>` });
export const orderPaidEmail = (d: {
  buyerName: string;
  orders: OrderMailOrder[];
  totalCents: number;
  publicBaseUrl: string;
}) => plain('Your Portage order is confirmed', `${d.buyerName} ${d.totalCents}`);
export const orderShippedEmail = (d: { buyerName: string; order: OrderMailOrder; publicBaseUrl: string }) =>
  plain('Your order has shipped', `${d.order.trackingNumber}`);
export const orderCancelledEmail = (d: {
  buyerName: string;
  order: OrderMailOrder;
  reason: string | null;
  refundCents: number;
}) => plain('Your order is cancelled', `${d.refundCents}`);
export const orderRefundedEmail = (d: { buyerName: string; order: OrderMailOrder; refundCents: number }) =>
  plain('Your refund', `${d.refundCents}`);
