// The desk's money page (/desk/money, admins): the figures GET /admin/payouts answers, split as
// an operator reads them, and the reconciliation GET /admin/payouts/reconciliation answers, for
// the current month on the books' calendar unless the form chose other days.
import type { FastifyInstance } from 'fastify';
import { shopNames } from '../../modules/auth/sellers.ts';
import { accountTotals } from '../../modules/ledger/ledger.ts';
import { moneyOfOrders } from '../../modules/orders/service.ts';
import { ProviderError } from '../../modules/payments/provider.ts';
import { openDisputes } from '../../modules/payouts/disputes.ts';
import { failedTransfers } from '../../modules/payouts/payouts.ts';
import { type Reconciliation, reconcile } from '../../modules/payouts/reconcile.ts';
import { monthOf, monthSpan } from '../../modules/payouts/statements.ts';
import { signedIn, viewOf, type WebDeps } from '../core.ts';
import { type FormError, formErrorOf, sendHtml, shownRefusal } from '../layout.ts';
import { filled, queryOf } from './form.ts';
import { type MoneyPage, moneyView } from './money-views.ts';

const ADMINS = ['admin'] as const;
/** The most failed transfers and open disputes the page lists (the oldest disputes, the newest failures). */
const LISTED = 50;
/** A credit balance as what it holds (positive), never -0. */
const credit = (cents: number) => (cents === 0 ? 0 : -cents);

export function deskMoneyPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;

  app.get('/desk/money', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const ctx = req.ctx;
    const month = monthSpan(monthOf(ctx.now()))!;
    const period = {
      from: filled(queryOf(req, 'from'))?.slice(0, 20) ?? month.firstDay,
      to: filled(queryOf(req, 'to'))?.slice(0, 20) ?? month.lastDay,
    };

    const [totals, failed, open] = await Promise.all([
      accountTotals(ctx),
      failedTransfers(ctx, LISTED),
      openDisputes(ctx, LISTED),
    ]);
    const [sellers, orders, disputed] = await Promise.all([
      shopNames(
        ctx,
        failed.map((f) => f.sellerId),
      ),
      moneyOfOrders(ctx, { orderIds: [...new Set(failed.map((f) => f.orderId))] }),
      Promise.all(open.map((d) => moneyOfOrders(ctx, { checkoutId: d.checkoutId }))),
    ]);
    const numbers = new Map(orders.map((o) => [o.id, o.number]));

    let reconciliation: Reconciliation | undefined;
    let providerDown = false;
    let error: FormError | undefined;
    let status = 200;
    if (deps.payouts.payouts.balanceTransactions) {
      try {
        reconciliation = await reconcile(ctx, deps.payouts, period);
      } catch (err) {
        if (shownRefusal(err)) {
          error = formErrorOf(v.p.locale, err);
          status = err.statusCode;
        } else if (err instanceof ProviderError) {
          ctx.log.warn({ err: err.message }, 'the reconciliation could not read the provider');
          providerDown = true;
        } else throw err;
      }
    }

    const o: MoneyPage = {
      commissionCents: credit(totals.platform_commission),
      commissionTaxCents: credit(totals.platform_tax_payable),
      pendingCents: credit(totals.seller_pending),
      availableCents: credit(totals.seller_available),
      inTransitCents: credit(totals.seller_in_transit),
      providerCashCents: totals.provider_cash,
      holdDays: deps.payouts.payoutHoldDays,
      failed: failed.map((f) => ({
        sellerId: f.sellerId,
        seller: sellers.get(f.sellerId) ?? f.sellerId,
        orderNumber: numbers.get(f.orderId) ?? f.orderId,
        amountCents: f.amountCents,
        error: f.lastError,
        failedAt: f.completedAt,
      })),
      disputes: open.map((d, i) => ({
        id: d.id,
        orderNumbers: (disputed[i] ?? []).map((x) => x.number),
        amountCents: d.amountCents,
        feeCents: d.feeCents,
        reason: d.reason,
        status: d.status,
        evidenceDueBy: d.evidenceDueBy,
        createdAt: d.createdAt,
      })),
      period,
      ...(reconciliation ? { reconciliation } : {}),
      ...(providerDown ? { providerDown } : {}),
      ...(error ? { error } : {}),
    };
    return sendHtml(reply, moneyView(v, o), status);
  });
}
