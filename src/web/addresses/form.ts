// The address form as a person fills it (the checkout's and the account's): what was typed, made
// canonical, and read by the API's own address schema so a refusal names each field as its 400 does.
import { canonicalPhone, canonicalPostalCode } from '../../contract/address-input.ts';
import { recipientFields, shippingAddressInput } from '../../contract/checkout.ts';
import { readForm } from '../layout.ts';

/** An address form's fields as a person typed them, phone and postal code in canonical form. */
export type AddressForm = Partial<
  Record<'recipientName' | 'street' | 'line2' | 'city' | 'province' | 'postalCode' | 'phone', string>
>;

/** The form's values, what people type made canonical (shown back so when refused). */
export function typedAddress(body: Record<string, unknown>): AddressForm {
  const one = (x: unknown) => (typeof x === 'string' ? x : '');
  return {
    recipientName: one(body.recipientName).trim(),
    street: one(body.street),
    line2: one(body.line2),
    city: one(body.city),
    province: one(body.province),
    postalCode: canonicalPostalCode(one(body.postalCode)),
    phone: canonicalPhone(one(body.phone)),
  };
}

/** The address form's schema: the API's address and what the pages add (a recipient, a unit line). */
export const addressForm = recipientFields.extend({ shipping_address: shippingAddressInput });

/** Reads a typed address by the API's rules (a refusal names each field, as the API's 400 does). */
export const readAddress = (a: AddressForm, recipientName = a.recipientName) =>
  readForm(addressForm, {
    recipientName,
    line2: a.line2,
    shipping_address: {
      street: a.street,
      city: a.city,
      province: a.province,
      postalCode: a.postalCode,
      country: 'CA',
      phone: a.phone,
    },
  });
