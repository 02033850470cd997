// A seller's notifications (docs/api.md "Seller notifications"): what happened to their shop, told
// in the transaction that made it happen, in their inbox and by email as they chose, in their
// language. Other modules call notifySellers (or subscribe a handler of handlers.ts); the seller
// reads and marks the inbox and chooses its kinds here.
import { html } from 'ghtml';
import { isRecordId, newId, toUnix } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, formatMoney, type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import {
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationSetting,
} from '../../contract/notifications.ts';
import { emailText } from '../../views/email.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { greeting, line, page, type RenderedMail } from '../mail/templates.ts';
import {
  claimNotice,
  claimNotices,
  deleteNotificationsBefore,
  dropNotice,
  inboxPage,
  insertNotifications,
  markRead,
  type NoticeFacts,
  type NotificationRow,
  queuedIds,
  queueNotices,
  type Recipient,
  recipients,
  type SoldLine,
  saveSettingsRows,
  setThreshold,
  settingsRows,
  thresholdsOf,
  unreadCount,
} from './queries.ts';

/** Something to tell a seller: its kind, what it is about (the inbox's key with the kind), its facts. */
export interface Notice {
  sellerId: string;
  kind: NotificationKind;
  subjectId: string;
  facts: NoticeFacts;
}

/** A seller being told, as an email is addressed to them. */
export type NoticeRecipient = Pick<Recipient, 'id' | 'email' | 'name' | 'locale'>;

/** A notice as the job delivers it: when it happened. */
export type QueuedNotice = Notice & { createdAt: Date };

/**
 * A kind's own email (a return's, a dispute's), written to the outbox instead of the plain one
 * in the job's transaction; nothing when what it is about is gone.
 */
export type NoticeMail = (
  ctx: RequestContext,
  to: NoticeRecipient,
  notice: QueuedNotice,
  locale: Locale,
  publicBaseUrl: string,
) => Promise<void>;

/** What the notices job is given (jobs/index.ts). */
export interface NoticeDeps {
  /** PUBLIC_BASE_URL: the emails link the console's pages. */
  publicBaseUrl: string;
  /** The kinds with an email of their own. */
  mails: Partial<Record<NotificationKind, NoticeMail>>;
  /** Wakes the mail job once emails are written. */
  nudgeMail?: () => void;
}

/** A notification is kept this long (the cleanup job). */
export const NOTIFICATION_RETENTION_DAYS = 365;

/**
 * Tells each notice's seller: queued in ctx's transaction (one statement sent with its next one,
 * no round trip), delivered by the `notices` job. `sold`: a sale's lines, each of which tells its
 * seller of low stock when the sale took its variant across its product's threshold.
 */
export function notifySellers(ctx: RequestContext, notices: Notice[], sold: SoldLine[] = []): Promise<void> {
  if (notices.length === 0 && sold.length === 0) return Promise.resolve();
  return queueNotices(ctx.db, notices, sold, ctx.now());
}

/**
 * The `notices` job's pass: up to `limit` queued notices, in one transaction, each to its seller's
 * inbox and by email as they chose (both unless they said otherwise), in their language; the
 * queued rows go with it, so a notice is told once. A subject told before is not told again,
 * except a variant's low stock (a new crossing). Answers how many it took.
 */
export async function deliverNotices(ctx: RequestContext, deps: NoticeDeps, limit: number): Promise<number> {
  let taken: number;
  try {
    taken = await tell(ctx, deps, (db) => claimNotices(db, limit));
  } catch (err) {
    // One notice that cannot be told (a template's bug) must not stall every seller's: told one
    // by one, and one that fails alone is dropped, logged.
    ctx.log.error({ err }, 'a batch of notices failed; telling them one by one');
    taken = 0;
    for (const id of await queuedIds(ctx.db, limit)) {
      try {
        taken += await tell(ctx, deps, (db) => claimNotice(db, id));
      } catch (one) {
        ctx.log.error({ err: one, notice: id }, 'a notice could not be told: dropped');
        taken += await dropNotice(ctx.db, id);
      }
    }
  }
  if (taken > 0) deps.nudgeMail?.();
  return taken;
}

/** Tells the notices `claim` takes, in one transaction; answers how many it took. */
function tell(
  ctx: RequestContext,
  deps: NoticeDeps,
  claim: (db: RequestContext['db']) => ReturnType<typeof claimNotices>,
) {
  return inTransaction(ctx, async (tx) => {
    const queued = await claim(tx.db);
    if (queued.length === 0) return 0;
    const who = new Map(
      (await recipients(tx.db, [...new Set(queued.map((n) => n.sellerId))])).map((r) => [r.id, r]),
    );
    // One row per key in the inbox's insert (a statement cannot write one row twice): a subject
    // queued twice in a batch (published, hidden, published again) is told once; a variant's low
    // stock crossed twice keeps its last crossing.
    const rows = new Map<string, NotificationRow>();
    const mails: Array<{ to: Recipient; notice: (typeof queued)[number] }> = [];
    for (const notice of queued) {
      const to = who.get(notice.sellerId);
      if (!to) continue;
      const key = `${notice.sellerId}\u0000${notice.kind}\u0000${notice.subjectId}`;
      const again =
        rows.has(key) ||
        mails.some(
          (m) =>
            m.notice.kind === notice.kind &&
            m.notice.subjectId === notice.subjectId &&
            m.notice.sellerId === notice.sellerId,
        );
      if (again && notice.kind !== 'stock_low') continue;
      const [email, inbox] = to.chosen?.[notice.kind] ?? [true, true];
      if (inbox) {
        rows.set(key, {
          id: newId('notifications'),
          sellerId: notice.sellerId,
          kind: notice.kind,
          subjectId: notice.subjectId,
          facts: notice.facts,
          createdAt: notice.createdAt,
          readAt: null,
        });
      }
      if (email) mails.push({ to, notice });
    }
    await insertNotifications(tx.db, [...rows.values()]);
    for (const { to, notice } of mails) {
      const locale = mailLocale(tx, to);
      const own = deps.mails[notice.kind];
      if (own) {
        await own(tx, to, notice, locale, deps.publicBaseUrl);
        continue;
      }
      // Low stock is told at each crossing: its key has the queued notice's; any other subject once.
      const once = notice.kind === 'stock_low' ? `${notice.subjectId}:${notice.id}` : notice.subjectId;
      await enqueueMail(tx, {
        dedupeKey: `notice:${notice.kind}:${once}`,
        kind: `notice-${notice.kind}`,
        to: to.email,
        ...noticeEmail(to.name, notice, deps.publicBaseUrl, locale),
      });
    }
    return queued.length;
  });
}

/** The one line that says a notification, in `locale`. */
export function noticeMessage(locale: Locale, kind: NotificationKind, facts: NoticeFacts): string {
  const money = (key: string) => formatMoney(locale, Number(facts[key] ?? 0));
  const fact = (key: string) => line(String(facts[key] ?? ''));
  switch (kind) {
    case 'order_placed':
    case 'order_waiting_for_stock':
      return t(locale, kind === 'order_placed' ? 'notice.orderPlaced' : 'notice.orderWaitingForStock', {
        order: fact('orderNumber'),
        total: money('totalCents'),
        units: Number(facts.units ?? 0),
      });
    case 'return_requested':
      return t(locale, 'notice.returnRequested', {
        order: fact('orderNumber'),
        refund: money('estimatedRefundCents'),
      });
    case 'review_posted':
      return t(locale, 'notice.reviewPosted', {
        product: fact('productTitle'),
        rating: Number(facts.rating ?? 0),
      });
    case 'stock_low': {
      const variant = fact('variantTitle');
      return t(locale, 'notice.stockLow', {
        item: variant ? `${fact('productTitle')} (${variant})` : fact('productTitle'),
        stock: Number(facts.stock ?? 0),
        threshold: Number(facts.threshold ?? 0),
      });
    }
    case 'payout_sent':
      return Number(facts.failedCents ?? 0) > 0
        ? t(locale, 'notice.payoutSentPartly', { amount: money('paidCents'), failed: money('failedCents') })
        : t(locale, 'notice.payoutSent', { amount: money('paidCents') });
    case 'payout_failed':
      return t(locale, 'notice.payoutFailed', { amount: money('failedCents') });
    case 'dispute_opened':
      return t(locale, 'notice.disputeOpened', { order: fact('orderNumber'), amount: money('amountCents') });
    case 'order_message':
      return t(locale, 'notice.orderMessage', { order: fact('orderNumber') });
  }
}

/** The console's page of a notification (a path of this site). */
export function noticeLink(kind: NotificationKind, subjectId: string, facts: NoticeFacts): string {
  const at = (base: string, id: unknown) => `${base}/${encodeURIComponent(String(id))}`;
  switch (kind) {
    case 'order_placed':
    case 'order_waiting_for_stock':
      return at('/console/orders', subjectId);
    case 'return_requested':
      return at('/console/returns', subjectId);
    case 'review_posted':
    case 'stock_low':
      return at('/console/products', facts.productId);
    case 'payout_sent':
    case 'payout_failed':
    case 'dispute_opened':
      return '/console/payouts';
    case 'order_message':
      return `${at('/console/orders', facts.orderId)}#messages`;
  }
}

/** The plain email of a notification: the greeting, its line, a link to it and to the settings. */
export function noticeEmail(
  name: string,
  notice: Pick<Notice, 'kind' | 'subjectId' | 'facts'>,
  publicBaseUrl: string | undefined,
  locale: Locale,
): RenderedMail {
  const said = noticeMessage(locale, notice.kind, notice.facts);
  const url = publicBaseUrl && `${publicBaseUrl}${noticeLink(notice.kind, notice.subjectId, notice.facts)}`;
  const settings = publicBaseUrl && `${publicBaseUrl}/console/notifications#settings`;
  return {
    subject: said,
    text: emailText([
      greeting(name, locale),
      '',
      said,
      '',
      ...(url ? [t(locale, 'mail.notice.link', { url }), ''] : []),
      ...(settings ? [t(locale, 'mail.notice.settings', { url: settings })] : []),
    ]),
    html: page(
      said,
      [
        html`<p>${greeting(name, locale)}</p>`,
        html`<p>${said}</p>`,
        ...(url ? [html`<p><a href="${url}">${t(locale, 'mail.notice.linkLabel')}</a></p>`] : []),
        ...(settings
          ? [html`<p><small><a href="${settings}">${t(locale, 'mail.notice.settingsLabel')}</a></small></p>`]
          : []),
      ],
      locale,
    ),
  };
}

// ---- the seller's side ------------------------------------------------------------------

/** A notification as the API answers it, in the reader's language. */
function answerOf(locale: Locale, row: NotificationRow) {
  return {
    id: row.id,
    kind: row.kind,
    subjectId: row.subjectId,
    message: noticeMessage(locale, row.kind, row.facts),
    link: noticeLink(row.kind, row.subjectId, row.facts),
    facts: row.facts,
    createdAt: toUnix(row.createdAt),
    readAt: row.readAt ? toUnix(row.readAt) : null,
  };
}

export type NotificationAnswer = ReturnType<typeof answerOf>;

/** A page of the caller's inbox, newest first, with their unread count. */
export async function myNotifications(
  ctx: RequestContext,
  q: { limit: number; unread?: boolean | undefined; before?: string | undefined },
) {
  const me = caller(ctx);
  const before = q.before && isRecordId('notifications', q.before) ? q.before : undefined;
  if (q.before && !before) throw notFound('error.notifications.notFound', { id: q.before });
  const [rows, unread] = await Promise.all([
    inboxPage(ctx.db, me.id, {
      limit: q.limit,
      ...(q.unread ? { unread: true } : {}),
      ...(before ? { before } : {}),
    }),
    unreadCount(ctx.db, me.id),
  ]);
  const page = rows.slice(0, q.limit);
  return {
    notifications: page.map((r) => answerOf(ctx.locale ?? BASE_LOCALE, r)),
    unread,
    nextBefore: rows.length > q.limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/** Marks the caller's notifications `ids` (or all of them) read; answers what stays unread. */
export async function markMyNotificationsRead(ctx: RequestContext, b: { ids?: string[]; all?: true }) {
  const me = caller(ctx);
  await markRead(ctx.db, me.id, b.all ? undefined : (b.ids ?? []), ctx.now());
  return { unread: await unreadCount(ctx.db, me.id) };
}

/** Every kind with the caller's choice (on for both unless they chose otherwise). */
export async function myNotificationSettings(
  ctx: RequestContext,
): Promise<{ settings: NotificationSetting[] }> {
  const me = caller(ctx);
  const chosen = new Map((await settingsRows(ctx.db, me.id)).map((r) => [r.kind, r]));
  return {
    settings: NOTIFICATION_KINDS.map((kind) => {
      const c = chosen.get(kind);
      return { kind, email: c?.email ?? true, inbox: c?.inbox ?? true };
    }),
  };
}

/** Saves the caller's choice of the kinds given (the others keep theirs); answers every kind. */
export async function saveMyNotificationSettings(ctx: RequestContext, settings: NotificationSetting[]) {
  const me = caller(ctx);
  await saveSettingsRows(
    ctx.db,
    settings.map((s) => ({ sellerId: me.id, kind: s.kind, email: s.email, inbox: s.inbox })),
  );
  return myNotificationSettings(ctx);
}

/** The caller's products' low-stock thresholds (those set). */
export async function myThresholds(ctx: RequestContext, productIds?: string[]) {
  return { thresholds: await thresholdsOf(ctx.db, caller(ctx).id, productIds) };
}

/** Sets (or, with null, clears) the threshold of the caller's product; another's is 404. */
export async function setMyThreshold(ctx: RequestContext, productId: string, threshold: number | null) {
  const me = caller(ctx);
  const set =
    isRecordId('products', productId) &&
    (await inTransaction(ctx, (tx) => setThreshold(tx.db, me.id, productId, threshold)));
  if (!set) throw notFound('error.catalog.productNotFound', { id: productId });
  return { productId, threshold };
}

/** The line of each kind in the settings ("New orders"). */
const KIND_LABELS = {
  order_placed: 'notice.kind.orderPlaced',
  order_waiting_for_stock: 'notice.kind.orderWaitingForStock',
  return_requested: 'notice.kind.returnRequested',
  review_posted: 'notice.kind.reviewPosted',
  stock_low: 'notice.kind.stockLow',
  payout_sent: 'notice.kind.payoutSent',
  payout_failed: 'notice.kind.payoutFailed',
  dispute_opened: 'notice.kind.disputeOpened',
  order_message: 'notice.kind.orderMessage',
} as const satisfies Record<NotificationKind, MessageKey>;

export const kindLabel = (locale: Locale, kind: NotificationKind) => t(locale, KIND_LABELS[kind]);

/** The cleanup job: up to `limit` notifications past NOTIFICATION_RETENTION_DAYS deleted; answers how many. */
export function deleteOldNotifications(ctx: RequestContext, limit: number): Promise<number> {
  const before = new Date(ctx.now().getTime() - NOTIFICATION_RETENTION_DAYS * 86_400_000);
  return deleteNotificationsBefore(ctx.db, before, limit);
}
