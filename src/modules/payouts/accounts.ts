// A seller's payout account (docs/api.md "Payout accounts"): opened at the payout provider
// (POST /sellers/me/payout-account), read, its schedule and minimum set (GET, PUT), and kept as
// the provider says it is (the `account_updated` event, Stripe's return URL, the sandbox's
// onboarding page). When the payout job next looks at a seller is `nextPayoutTime`: 09:00 in
// Toronto, every day or every Monday.
import { eq, sql } from 'drizzle-orm';
import { toUnix } from '../../contract/common.ts';
import { AppError, notFound } from '../../contract/errors.ts';
import { caller, type RequestContext } from '../context.ts';
import { type PaymentEvent, ProviderError } from '../payments/provider.ts';
import { torontoInstant, torontoWall } from '../pricing/dates.ts';
import type { PayoutsDeps } from './deps.ts';
import type { ConnectedAccount } from './provider.ts';
import { FAILING_ACCOUNT_SUFFIX } from './providers/sandbox.ts';
import { type PayoutSchedule, sellerPayoutAccounts } from './tables.ts';

export type PayoutAccountRow = typeof sellerPayoutAccounts.$inferSelect;
export type AccountUpdatedEvent = Extract<PaymentEvent, { kind: 'account_updated' }>;

/** What GET /sellers/me/payout-account answers. */
export interface PayoutAccountAnswer {
  provider: 'sandbox' | 'stripe';
  accountId: string;
  payoutsEnabled: boolean;
  requirements: string[];
  bankLast4: string | null;
  schedule: PayoutSchedule;
  minimumCents: number;
  /** Unix seconds. */
  nextPayoutAt: number;
}

/** The bounds of a payout's minimum (the table's check says the same). */
export const MINIMUM_CENTS = { min: 100, max: 100_000_000 } as const;

// ---- the schedule ---------------------------------------------------------------------------

/** Payouts are looked at 09:00 on the marketplace's clock, and weekly ones on Mondays. */
export const PAYOUT_TIME_ZONE = 'America/Toronto';
export const PAYOUT_HOUR = 9;
/** Monday, as Date.getUTCDay counts. */
const PAYOUT_WEEKDAY = 1;

/**
 * The next payout time strictly after `now`: 09:00 in Toronto the same day or the next one
 * (`daily`), or on the next Monday (`weekly`), whatever the daylight saving time.
 */
export function nextPayoutTime(schedule: PayoutSchedule, now: Date): Date {
  const wall = new Date(torontoWall(now.getTime()));
  for (let days = 0; days <= 8; days++) {
    const day = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate() + days, PAYOUT_HOUR);
    if (schedule === 'weekly' && new Date(day).getUTCDay() !== PAYOUT_WEEKDAY) continue;
    const at = torontoInstant(day);
    if (at > now.getTime()) return new Date(at);
  }
  throw new Error(`no payout time after ${now.toISOString()}`);
}

// ---- reads ------------------------------------------------------------------------------------

export function accountAnswer(row: PayoutAccountRow): PayoutAccountAnswer {
  return {
    provider: row.provider,
    accountId: row.accountId,
    payoutsEnabled: row.payoutsEnabled,
    requirements: row.requirements,
    bankLast4: row.bankLast4,
    schedule: row.schedule,
    minimumCents: row.minimumCents,
    nextPayoutAt: toUnix(row.nextPayoutAt),
  };
}

/** A seller's payout account, if they opened one. */
export async function payoutAccountOf(
  ctx: RequestContext,
  sellerId: string,
): Promise<PayoutAccountRow | undefined> {
  const [row] = await ctx.db
    .select()
    .from(sellerPayoutAccounts)
    .where(eq(sellerPayoutAccounts.sellerId, sellerId));
  return row;
}

/** The account a provider's id names (a renamed sandbox account: its new id). */
export async function payoutAccountById(
  ctx: RequestContext,
  accountId: string,
): Promise<PayoutAccountRow | undefined> {
  const [row] = await ctx.db
    .select()
    .from(sellerPayoutAccounts)
    .where(eq(sellerPayoutAccounts.accountId, accountId));
  return row;
}

/** GET /sellers/me/payout-account. */
export async function getPayoutAccount(ctx: RequestContext): Promise<PayoutAccountAnswer> {
  const row = await payoutAccountOf(ctx, caller(ctx).id);
  if (!row) throw notFound('error.payouts.noAccount');
  return accountAnswer(row);
}

// ---- opening, onboarding --------------------------------------------------------------------

/** The provider's idempotency key of a seller's account: one account per seller, however often asked. */
export const accountKey = (sellerId: string) => `payout-account:${sellerId}`;

/** Where the provider sends the seller back, and where an expired onboarding link goes. */
export const returnUrl = (deps: Pick<PayoutsDeps, 'publicBaseUrl'>) =>
  `${deps.publicBaseUrl}/sellers/me/payout-account/return`;
export const refreshUrl = (deps: Pick<PayoutsDeps, 'publicBaseUrl'>) =>
  `${deps.publicBaseUrl}/sellers/me/payout-account/refresh`;

/** A provider's refusal or outage as the caller's answer: 503 worth a retry, 400 otherwise. */
function providerFailure(ctx: RequestContext, err: unknown, what: string): unknown {
  if (!(err instanceof ProviderError)) return err;
  ctx.log.warn({ err: err.message, retryable: err.retryable }, what);
  return new AppError('PAYMENT_PROVIDER_ERROR', err.retryable ? 503 : 400, err.publicMessage);
}

/**
 * POST /sellers/me/payout-account: the caller's account, opened at the provider when there is
 * none (`created`), with a fresh onboarding link. The provider is asked with a key of the
 * seller's: a retry, a double click or a race opens one account, and the row (one per seller)
 * is written once; the loser of a race reads the winner's.
 */
export async function openPayoutAccount(
  ctx: RequestContext,
  deps: Pick<PayoutsDeps, 'payouts' | 'publicBaseUrl'>,
): Promise<{ created: boolean; account: PayoutAccountAnswer; onboardingUrl: string }> {
  const me = caller(ctx);
  let row = await payoutAccountOf(ctx, me.id);
  let created = false;
  if (!row) {
    let opened: ConnectedAccount;
    try {
      opened = await deps.payouts.createAccount({
        sellerId: me.id,
        email: me.email,
        idempotencyKey: accountKey(me.id),
      });
    } catch (err) {
      throw providerFailure(ctx, err, 'the payout provider did not open an account');
    }
    const now = ctx.now();
    const inserted = await ctx.db
      .insert(sellerPayoutAccounts)
      .values({
        sellerId: me.id,
        provider: deps.payouts.name,
        accountId: opened.accountId,
        payoutsEnabled: opened.payoutsEnabled,
        requirements: opened.requirements,
        bankLast4: opened.bankLast4,
        schedule: 'weekly',
        nextPayoutAt: nextPayoutTime('weekly', now),
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    created = inserted.length > 0;
    row = inserted[0] ?? (await payoutAccountOf(ctx, me.id));
    if (!row) throw new Error(`payout account ${opened.accountId} is another seller's`);
  }
  const onboardingUrl = await onboardingLinkOf(ctx, deps, row);
  return { created, account: accountAnswer(row), onboardingUrl };
}

/** A fresh onboarding link of an account (a link expires: Stripe's within minutes). */
export async function onboardingLinkOf(
  ctx: RequestContext,
  deps: Pick<PayoutsDeps, 'payouts' | 'publicBaseUrl'>,
  row: PayoutAccountRow,
): Promise<string> {
  try {
    const link = await deps.payouts.onboardingLink({
      accountId: row.accountId,
      refreshUrl: refreshUrl(deps),
      returnUrl: returnUrl(deps),
    });
    return link.url;
  } catch (err) {
    throw providerFailure(ctx, err, 'the payout provider made no onboarding link');
  }
}

// ---- the schedule and minimum -----------------------------------------------------------------

/**
 * PUT /sellers/me/payout-account: the schedule and the minimum (what is not sent is kept). A new
 * schedule moves the next payout time to that schedule's next one.
 */
export async function updatePayoutSettings(
  ctx: RequestContext,
  body: { schedule?: PayoutSchedule | undefined; minimumCents?: number | undefined },
): Promise<PayoutAccountAnswer> {
  const me = caller(ctx);
  const now = ctx.now();
  const [row] = await ctx.db
    .update(sellerPayoutAccounts)
    .set({
      ...(body.schedule
        ? {
            schedule: body.schedule,
            // Moved only when the schedule changes: the same one keeps its time (the job's).
            nextPayoutAt: sql`case when ${sellerPayoutAccounts.schedule} = ${body.schedule}
              then ${sellerPayoutAccounts.nextPayoutAt}
              else ${nextPayoutTime(body.schedule, now).toISOString()}::timestamptz end`,
          }
        : {}),
      ...(body.minimumCents !== undefined ? { minimumCents: body.minimumCents } : {}),
      updatedAt: now,
    })
    .where(eq(sellerPayoutAccounts.sellerId, me.id))
    .returning();
  if (!row) throw notFound('error.payouts.noAccount');
  return accountAnswer(row);
}

// ---- the provider's word ----------------------------------------------------------------------

/** What the provider says of an account: whether it pays out, what is missing, its bank. */
type AccountState = Pick<ConnectedAccount, 'payoutsEnabled' | 'requirements' | 'bankLast4'>;

async function applyAccountState(
  ctx: RequestContext,
  accountId: string,
  state: AccountState,
): Promise<PayoutAccountRow | undefined> {
  const [row] = await ctx.db
    .update(sellerPayoutAccounts)
    .set({
      payoutsEnabled: state.payoutsEnabled,
      requirements: state.requirements,
      // A provider that names no bank account leaves the one we know.
      bankLast4: state.bankLast4 ?? sql`${sellerPayoutAccounts.bankLast4}`,
      updatedAt: ctx.now(),
    })
    .where(eq(sellerPayoutAccounts.accountId, accountId))
    .returning();
  return row;
}

/**
 * An `account_updated` event (Stripe's `account.updated`), in the caller's transaction: the
 * account's payouts, requirements and bank as the provider says. An account that is not one of
 * ours is ignored (false).
 */
export async function accountUpdated(tx: RequestContext, event: AccountUpdatedEvent): Promise<boolean> {
  const row = await applyAccountState(tx, event.accountId, event);
  if (!row) tx.log.info({ eventId: event.eventId }, 'account.updated for an account that is not ours');
  return row !== undefined;
}

/**
 * The seller is back from the provider's onboarding (Stripe's return URL): the account as the
 * provider has it now. The sandbox's page wrote it already: nothing to ask.
 */
export async function refreshFromProvider(
  ctx: RequestContext,
  deps: Pick<PayoutsDeps, 'payouts'>,
  sellerId: string,
): Promise<PayoutAccountRow | undefined> {
  const row = await payoutAccountOf(ctx, sellerId);
  if (!row || deps.payouts.name !== 'stripe' || row.provider !== 'stripe') return row;
  let account: ConnectedAccount;
  try {
    account = await deps.payouts.retrieveAccount(row.accountId);
  } catch (err) {
    throw providerFailure(ctx, err, 'the payout provider did not answer the account');
  }
  return (await applyAccountState(ctx, row.accountId, account)) ?? row;
}

/**
 * The sandbox's onboarding page recorded a test bank account: the account pays out, nothing is
 * due, and its last four digits are kept. The failing test number renames the account
 * `<id>_fails` (the sandbox provider refuses its transfers); the paying one takes the suffix off.
 */
export async function recordSandboxBank(
  ctx: RequestContext,
  row: PayoutAccountRow,
  bank: { last4: string; fails: boolean },
): Promise<PayoutAccountRow> {
  const base = row.accountId.endsWith(FAILING_ACCOUNT_SUFFIX)
    ? row.accountId.slice(0, -FAILING_ACCOUNT_SUFFIX.length)
    : row.accountId;
  const [updated] = await ctx.db
    .update(sellerPayoutAccounts)
    .set({
      accountId: bank.fails ? `${base}${FAILING_ACCOUNT_SUFFIX}` : base,
      payoutsEnabled: true,
      requirements: [],
      bankLast4: bank.last4,
      updatedAt: ctx.now(),
    })
    .where(eq(sellerPayoutAccounts.sellerId, row.sellerId))
    .returning();
  if (!updated) throw notFound('error.payouts.noAccount');
  return updated;
}
