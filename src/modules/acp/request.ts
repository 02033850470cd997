// ACP's request mapper: a wire request read into the core's neutral input (its session request,
// change or payment), refusing what ACP allows but Portage does not offer (another currency, a
// fulfillment option that is not one of ours, a purchase order instead of a token).
import type {
  AcpCompleteSessionRequest,
  AcpCreateSessionRequest,
  AcpDelegatePaymentRequest,
  AcpUpdateSessionRequest,
} from '../../contract/acp.ts';
import { text } from '../../contract/i18n.ts';
import {
  couponsOf,
  mergedItems,
  type SessionChange,
  type SessionRequest,
  shippingChoicesOf,
} from '../agent-checkout/request.ts';
import type { SessionPayment } from '../agent-checkout/sessions.ts';
import type { VaultRequest } from '../agent-checkout/vault.ts';
import { choiceOfAcpOption } from './answer.ts';
import { acpInvalid } from './errors.ts';

/** POST /checkout_sessions's body as the session's request (`locale`: Accept-Language's, when the body names none). */
export function sessionRequestOf(input: AcpCreateSessionRequest, locale: string | undefined): SessionRequest {
  if (input.currency.toLowerCase() !== 'cad') {
    throw acpInvalid('invalid', text('acp.error.cadOnly'), '$.currency');
  }
  return {
    items: mergedItems(input.line_items),
    ...(input.buyer ? { buyer: input.buyer } : {}),
    ...(input.fulfillment_details ? { fulfillmentDetails: input.fulfillment_details } : {}),
    coupons: couponsOf(input),
    ...((input.locale ?? locale) ? { locale: input.locale ?? locale } : {}),
    ...(input.order_notes ? { orderNotes: input.order_notes } : {}),
  };
}

/** An update's body as the change it makes (absent fields: kept). */
export function sessionChangeOf(input: AcpUpdateSessionRequest): SessionChange {
  const selected = input.selected_fulfillment_options;
  const choices = selected?.map((o, n) => {
    const choice = o.type === 'shipping' ? choiceOfAcpOption(o.option_id) : undefined;
    if (!choice) {
      throw acpInvalid(
        'invalid',
        text('acp.error.noFulfillmentOption', { option: o.option_id }),
        `$.selected_fulfillment_options[${n}].option_id`,
      );
    }
    return choice;
  });
  return {
    ...(choices ? { shippingChoices: shippingChoicesOf(choices) } : {}),
    ...(input.line_items ? { items: mergedItems(input.line_items) } : {}),
    ...(input.buyer ? { buyer: input.buyer } : {}),
    ...(input.fulfillment_details ? { fulfillmentDetails: input.fulfillment_details } : {}),
    ...(input.coupons || input.discounts ? { coupons: couponsOf(input) } : {}),
    ...(input.order_notes ? { orderNotes: input.order_notes } : {}),
  };
}

/** A complete's payment: a handler's delegated token (a purchase order is not taken). */
export function sessionPaymentOf(input: AcpCompleteSessionRequest): SessionPayment {
  const payment = input.payment_data;
  if (!payment.handler_id || !payment.instrument) {
    throw acpInvalid('unsupported', text('acp.error.tokenOnly'), '$.payment_data');
  }
  return { handlerId: payment.handler_id, token: payment.instrument.credential.token };
}

/** Delegate payment's body as the vault's request. */
export function vaultRequestOf(input: AcpDelegatePaymentRequest): VaultRequest {
  return {
    cardNumber: input.payment_method.number,
    allowance: {
      currency: input.allowance.currency,
      maxAmount: input.allowance.max_amount,
      expiresAt: input.allowance.expires_at,
      sessionId: input.allowance.checkout_session_id,
    },
    metadata: input.metadata,
  };
}
