// The payout side of the payment provider (docs/payouts.md): Stripe Connect in production
// (connected accounts, onboarding links, transfers and their reversals, dispute evidence), the
// sandbox everywhere else. Nothing here runs inside a database transaction: the caller commits
// first, then calls, with an idempotency key derived from what it committed.
import type { ProviderError } from '../payments/provider.ts';

export interface ConnectedAccount {
  accountId: string;
  payoutsEnabled: boolean;
  /** What the provider still needs (Stripe's requirements.currently_due), e.g. `external_account`. */
  requirements: string[];
  bankLast4: string | null;
}

export interface PayoutProvider {
  readonly name: 'sandbox' | 'stripe';
  /** Opens a connected account for a seller (Stripe: accounts.create, country CA, transfers). */
  createAccount(input: {
    sellerId: string;
    email: string;
    idempotencyKey: string;
  }): Promise<ConnectedAccount>;
  /**
   * Where the seller finishes onboarding (Stripe: accountLinks.create, type account_onboarding;
   * the sandbox: its own page). `refreshUrl` is visited when the link expired.
   */
  onboardingLink(input: {
    accountId: string;
    refreshUrl: string;
    returnUrl: string;
  }): Promise<{ url: string }>;
  /** The account as the provider sees it now (Stripe: accounts.retrieve). */
  retrieveAccount(accountId: string): Promise<ConnectedAccount>;
  /**
   * Moves money to a connected account (Stripe: transfers.create, currency cad, with the
   * charge's transfer_group). A refusal or an outage is a ProviderError (its `retryable`).
   */
  transfer(input: {
    accountId: string;
    amountCents: number;
    transferGroup: string;
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ transferId: string }>;
  /** Takes money back from a transfer (Stripe: transfers.createReversal). */
  reverseTransfer(input: {
    transferId: string;
    amountCents: number;
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ reversalId: string }>;
  /**
   * Sends a seller's evidence for a dispute (Stripe: files.create with purpose dispute_evidence
   * for a file, then disputes.update with evidence.uncategorized_text / uncategorized_file,
   * `submit: true`). Answers the provider's file id when a file was sent.
   */
  submitDisputeEvidence(input: {
    disputeId: string;
    text: string;
    file?: { name: string; type: string; data: Buffer };
  }): Promise<{ fileId: string | null }>;
  /**
   * The movements of the platform's balance at the provider created in [createdFrom, createdTo),
   * newest first, at most `limit` (Stripe: balanceTransactions.list, auto-paginated). `amountCents`
   * is signed as the balance moved (a charge positive, a transfer negative), before `feeCents`,
   * the provider's own fee on it. Absent when the provider keeps no balance of its own (the
   * sandbox): there is nothing to reconcile the ledger with.
   */
  balanceTransactions?(input: { createdFrom: Date; createdTo: Date; limit: number }): Promise<
    Array<{
      id: string;
      /** The provider's type (Stripe's: `charge`, `refund`, `transfer`, `transfer_refund`, `adjustment`…). */
      type: string;
      amountCents: number;
      feeCents: number;
      /** The object that caused it (a charge, a refund, a transfer, a dispute…), when said. */
      source: string | null;
      created: Date;
    }>
  >;
}

/** One of the provider's balance transactions (PayoutProvider.balanceTransactions). */
export type BalanceTransaction = Awaited<
  ReturnType<NonNullable<PayoutProvider['balanceTransactions']>>
>[number];

export type { ProviderError };
