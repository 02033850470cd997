// UCP's request mapper: a create or update read into the core's session request (its items
// merged, its one shipping destination), refusing what UCP allows but Portage does not take.
import { z } from 'zod';
import { text } from '../../contract/i18n.ts';
import type { UcpCheckoutCreateRequest, UcpCheckoutUpdateRequest } from '../../contract/ucp.ts';
import { couponsOf, mergedItems, type SessionRequest, shippingChoicesOf } from '../agent-checkout/request.ts';
import type { Negotiated } from './agent.ts';
import { sellerOfGroup } from './answer.ts';
import { UcpFailure } from './errors.ts';
import { DISCOUNT, FULFILLMENT } from './profile.ts';

const BUYER_EMAIL = z.email().max(254);

/** The discount codes asked for, when the discount extension was negotiated (else none). */
export function codesOf(
  input: UcpCheckoutCreateRequest | UcpCheckoutUpdateRequest,
  negotiated: Negotiated,
): string[] {
  return negotiated.has(DISCOUNT) && input.discounts ? couponsOf({ discounts: input.discounts }) : [];
}

/** A UCP create or update read into the session's request (its items merged, its one destination). */
export function requestOf(
  input: UcpCheckoutCreateRequest | UcpCheckoutUpdateRequest,
  negotiated: Negotiated,
): Omit<SessionRequest, 'coupons'> {
  const items = mergedItems(input.line_items.map((l) => ({ id: l.item.id, quantity: l.quantity })));
  const email = input.buyer?.email?.trim();
  // UCP's buyer.email is any string: ours names an account, so it must be an address.
  if (email && !BUYER_EMAIL.safeParse(email).success) {
    throw new UcpFailure(400, 'invalid_request', text('ucp.error.buyerEmail', { max: 254 }));
  }
  const given = input.buyer;
  const buyer =
    email && given
      ? {
          email,
          ...(given.first_name ? { first_name: given.first_name } : {}),
          ...(given.last_name ? { last_name: given.last_name } : {}),
          ...(given.phone_number ? { phone_number: given.phone_number } : {}),
        }
      : undefined;
  const method = negotiated.has(FULFILLMENT) ? input.fulfillment?.methods?.[0] : undefined;
  if (method?.type && method.type !== 'shipping') {
    throw new UcpFailure(400, 'invalid_request', text('ucp.error.shippingOnly'));
  }
  const destinations = (method?.destinations ?? []) as Array<Record<string, unknown>>;
  const d = destinations[0];
  const field = (key: string) => (typeof d?.[key] === 'string' ? (d[key] as string) : '');
  const phone = field('phone_number') || input.buyer?.phone_number;
  const name = [field('first_name'), field('last_name')].filter(Boolean).join(' ');
  const fulfillmentDetails = d
    ? {
        ...(phone ? { phone_number: phone } : {}),
        address: {
          name:
            name || [buyer?.first_name, buyer?.last_name].filter(Boolean).join(' ') || (buyer?.email ?? ''),
          line_one: field('street_address'),
          ...(field('extended_address') ? { line_two: field('extended_address') } : {}),
          city: field('address_locality'),
          state: field('address_region'),
          country: field('address_country'),
          postal_code: field('postal_code'),
        },
      }
    : undefined;
  const locale = input.context?.language;
  // A group's selection names its parcel by the group's id (an update's; a create has no groups of ours yet).
  const groups = (method?.groups ?? []) as Array<{ id?: unknown; selected_option_id?: string | null }>;
  const choices = groups.flatMap((g) => {
    if (typeof g.id !== 'string' || !g.selected_option_id) return [];
    const sellerId = sellerOfGroup(g.id);
    if (!sellerId) throw new UcpFailure(400, 'invalid_request', text('ucp.error.noGroup', { group: g.id }));
    return [{ sellerId, optionId: g.selected_option_id }];
  });
  return {
    items,
    ...(buyer ? { buyer } : {}),
    ...(fulfillmentDetails ? { fulfillmentDetails } : {}),
    ...(choices.length > 0 ? { shippingChoices: shippingChoicesOf(choices) } : {}),
    ...(typeof locale === 'string' && locale.length <= 35 ? { locale } : {}),
  };
}
