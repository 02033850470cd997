// A shop's state (docs/lifecycles.md "Shop (`src/modules/shops/states.ts`)"):
// active, pending an admin's approval
// (SHOP_APPROVAL=on), or suspended with a reason for its seller. Nothing of a shop that is not
// active is on sale (portage_hidden_sellers, read by search, the catalog, the cart, checkout's
// holds and the protocols); its seller still builds the catalog and serves their open orders.
// Admins move it (approve, refuse, suspend, reinstate), each recorded in the audit log and told to
// the seller by email, in the transaction that makes it.
import { html } from 'ghtml';
import { isRecordId, toUnix } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import { type Locale, t } from '../../contract/i18n.ts';
import type { ShopAction } from '../../contract/shops.ts';
import { emailText } from '../../views/email.ts';
import { recordAdminAction } from '../audit/service.ts';
import type { ShopStatus } from '../auth/tables.ts';
import { shopVisibilityChanged } from '../catalog/service.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { greeting, line, page, type RenderedMail } from '../mail/templates.ts';
import { type ShopStateRow, shopStateRow, shopsInState, writeShopState } from './queries.ts';
import { shopMachine } from './states.ts';

/** The shop's state as the API answers it. */
export function shopState(row: ShopStateRow) {
  return {
    sellerId: row.sellerId,
    shopName: row.shopName,
    slug: row.slug,
    province: row.province,
    status: row.status,
    reason: row.reason,
    suspendedAt: row.suspendedAt ? toUnix(row.suspendedAt) : null,
    createdAt: toUnix(row.createdAt),
    seller: { email: row.email, name: row.name, suspended: row.accountSuspendedAt !== null },
  };
}

export type ShopState = ReturnType<typeof shopState>;

const shopNotFound = (sellerId: string) => notFound('error.shops.notFound', { shop: sellerId.slice(0, 100) });

/**
 * An admin moves a shop (`action`); `reason` (suspend, refuse) is told to the seller. A move the
 * state does not allow is 409 and says the state. One transaction: the row locked, written, the
 * audit row, every listing's kept total made stale, the seller's email.
 */
export async function moveShop(
  ctx: RequestContext,
  sellerId: string,
  action: ShopAction,
  reason: string | null,
): Promise<ShopState> {
  if (!isRecordId('users', sellerId)) throw shopNotFound(sellerId);
  const move = shopMachine.transitions[action];
  return inTransaction(ctx, async (tx) => {
    const current = await shopStateRow(tx.db, sellerId, true);
    if (!current) throw shopNotFound(sellerId);
    if (!(move.from as readonly ShopStatus[]).includes(current.status)) {
      const refused = shopMachine.refusal(action, current.status);
      throw conflict(refused.key, refused.values);
    }
    const suspended = move.to === 'suspended';
    const next = {
      status: move.to,
      reason: suspended ? reason : null,
      suspendedAt: suspended ? tx.now() : null,
    };
    await writeShopState(tx.db, sellerId, next);
    await recordAdminAction(tx, {
      action: `shop.${action}`,
      subject: sellerId,
      before: { status: current.status, reason: current.reason },
      after: { status: next.status, reason: next.reason },
    });
    await shopVisibilityChanged(tx);
    const after = { ...current, ...next };
    const locale = mailLocale(tx, { id: current.sellerId, locale: current.locale });
    await enqueueMail(tx, {
      dedupeKey: `shop-${action}:${sellerId}:${tx.now().getTime()}`,
      kind: `shop-${action}`,
      to: current.email,
      ...shopMail(after, action, locale),
    });
    return shopState(after);
  });
}

/** GET /admin/shops: a page of the shops pending approval or suspended. */
export async function listShops(
  ctx: RequestContext,
  q: { status: 'pending' | 'suspended'; limit: number; offset: number },
) {
  const { rows, total } = await shopsInState(ctx.db, q.status, q);
  return { shops: rows.map(shopState), total, limit: q.limit, offset: q.offset };
}

/** One shop's state (the desk's card; the console's banner for its seller); 404 without a shop. */
export async function shopStateOf(ctx: RequestContext, sellerId: string): Promise<ShopState> {
  const row = isRecordId('users', sellerId) ? await shopStateRow(ctx.db, sellerId) : undefined;
  if (!row) throw shopNotFound(sellerId);
  return shopState(row);
}

/** The email telling the seller what an admin did to their shop, in their language. */
export function shopMail(shop: ShopStateRow, action: ShopAction, locale: Locale): RenderedMail {
  const name = line(shop.shopName);
  const subject = t(locale, `mail.shop.${action}.subject`, { shop: name });
  const intro = t(locale, `mail.shop.${action}.intro`, { shop: name });
  const reason = shop.reason ? t(locale, 'mail.shop.reason', { reason: line(shop.reason) }) : '';
  const after = t(locale, `mail.shop.${action}.after`);
  const paragraphs = [greeting(shop.name, locale), intro, ...(reason ? [reason] : []), after];
  return {
    subject,
    text: emailText(paragraphs.flatMap((p) => [p, ''])),
    html: page(
      subject,
      paragraphs.map((p) => html`<p>${p}</p>`),
      locale,
    ),
  };
}
