import type { RequestContext } from '../context.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import type { PayoutProvider } from './provider.ts';

/** What the payouts module is given by the app (app.ts). */
export interface PayoutsDeps {
  payouts: PayoutProvider;
  /** The payment provider (its name says which provider the accounts are opened at). */
  provider: PaymentProvider;
  publicBaseUrl: string;
  /** Days after delivery before an order's money is available (PAYOUT_HOLD_DAYS). */
  payoutHoldDays: number;
  /** The sandbox's dispute fee (DISPUTE_FEE_CENTS), when the provider does not say. */
  disputeFeeCents: number;
  /** Wakes a background job now. */
  nudge(job: 'mail' | 'refunds' | 'payouts'): void;
  /** The sandbox's signer, when the sandbox is the provider (its test routes are served only then). */
  sandbox?: { sign(payload: string, now: Date): string };
}

export type { RequestContext };
