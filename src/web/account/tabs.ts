// The account's sections, as every account page (and the address book) shows them on top.
import { t } from '../../contract/i18n.ts';
import type { View } from '../core.ts';
import { tabs } from '../layout.ts';

/** The account's sections; a seller's or an admin's account has no buyer's sections (they answer 403). */
export const accountTabs = (v: View) =>
  tabs(v, t(v.p.locale, 'web.account.sections'), [
    { href: '/account', label: t(v.p.locale, 'web.account.overview') },
    ...(v.user?.role === 'buyer'
      ? [
          { href: '/account/orders', label: t(v.p.locale, 'web.account.orders') },
          { href: '/account/returns', label: t(v.p.locale, 'web.account.returns') },
          { href: '/account/addresses', label: t(v.p.locale, 'web.account.addresses') },
        ]
      : []),
    { href: '/account/agents', label: t(v.p.locale, 'web.account.agents') },
    { href: '/account/settings', label: t(v.p.locale, 'web.account.settings') },
  ]);
