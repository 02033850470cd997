// A shipping option as people read it: its service's name in their language.
import type { z } from 'zod';
import type { shippingOption } from '../../contract/checkout.ts';
import { BASE_LOCALE, type Locale, t } from '../../contract/i18n.ts';
import type { ShippingOption } from '../pricing/shipping.ts';

/** The service's name ("Canada Post Xpresspost", "Postes Canada Colis accélérés"). */
export const serviceName = (locale: Locale | undefined, option: Pick<ShippingOption, 'service'>) =>
  t(locale ?? BASE_LOCALE, 'shipping.service', { service: option.service.replace('.', '_') });

/** The option as the API answers it. */
export function optionAnswer(
  locale: Locale | undefined,
  option: ShippingOption,
): z.infer<typeof shippingOption> {
  return {
    id: option.id,
    carrier: option.carrier,
    service: option.service,
    name: serviceName(locale, option),
    priceCents: option.priceCents,
    deliveryDate: option.deliveryDate,
    ratedBy: option.ratedBy,
  };
}
