// The sandbox payout provider (the default when no Stripe key is set): connected accounts that
// live only in our own table, onboarded on our own page (/sandbox/connect/:accountId, with
// Stripe's Canadian test bank numbers), and transfers, reversals and evidence that always
// succeed, each id derived from its idempotency key as Stripe replays an answer for its key.
// One hook makes a payout fail: an account whose id ends in `_fails` (the onboarding page names
// it so when given the failing test number) has every transfer refused, not to be retried.
import { createHash } from 'node:crypto';
import { text } from '../../../contract/i18n.ts';
import { ProviderError } from '../../payments/provider.ts';
import type { ConnectedAccount, PayoutProvider } from '../provider.ts';

/**
 * Stripe's Canadian test bank account (institution 000, transit 11000): account `pays` pays out,
 * account `fails` is accepted but its payouts fail (Stripe: "no account"). The sandbox takes no
 * other account number, as Stripe's test mode takes no real one.
 */
export const SANDBOX_BANK = {
  institution: '000',
  transit: '11000',
  pays: '000123456789',
  fails: '000111111116',
} as const;

/** The suffix of a sandbox account whose transfers are refused (docs/api.md "Payout accounts"). */
export const FAILING_ACCOUNT_SUFFIX = '_fails';

/** The sandbox's onboarding page of an account (its address without the query). */
export const sandboxConnectPath = (accountId: string) => `/sandbox/connect/${encodeURIComponent(accountId)}`;

const digest = (what: string) => createHash('sha256').update(what).digest('hex').slice(0, 24);

/**
 * `url` as a path of our own (`/sellers/me/payout-account/return`), when it is one: under
 * `publicBaseUrl`, or a path that names no other host. Anything else: undefined.
 */
export function ownPath(url: string, publicBaseUrl: string): string | undefined {
  let base: URL;
  let at: URL;
  try {
    base = new URL(publicBaseUrl);
    at = new URL(url, base);
  } catch {
    return undefined;
  }
  if (at.origin !== base.origin || !at.pathname.startsWith('/') || at.pathname.startsWith('//')) {
    return undefined;
  }
  return at.pathname + at.search;
}

export function createSandboxPayouts(opts: { publicBaseUrl: string }): PayoutProvider {
  return {
    name: 'sandbox',

    // The account's id comes from the key: a retried or doubled create (the same seller's key)
    // answers the same account, as Stripe does for a key it has seen.
    async createAccount(input): Promise<ConnectedAccount> {
      return {
        accountId: `acct_sandbox_${digest(`account\n${input.idempotencyKey}`)}`,
        payoutsEnabled: false,
        requirements: ['external_account'],
        bankLast4: null,
      };
    },

    async onboardingLink(input) {
      const url = new URL(sandboxConnectPath(input.accountId), opts.publicBaseUrl);
      // Only a path of ours is carried to the page's "continue" link: never another site.
      const back = ownPath(input.returnUrl, opts.publicBaseUrl);
      if (back) url.searchParams.set('return', back);
      return { url: url.toString() };
    },

    async retrieveAccount(): Promise<never> {
      // The sandbox's accounts are our table's rows, changed by its onboarding page: nothing to ask.
      throw new Error('The sandbox keeps no accounts of its own: read seller_payout_accounts');
    },

    async transfer(input) {
      if (input.accountId.endsWith(FAILING_ACCOUNT_SUFFIX)) {
        throw new ProviderError(
          `sandbox: account ${input.accountId} refuses transfers (test bank account ${SANDBOX_BANK.fails})`,
          text('error.payouts.bankRefused'),
          false,
        );
      }
      return { transferId: `tr_sandbox_${digest(input.idempotencyKey)}` };
    },

    async reverseTransfer(input) {
      return { reversalId: `trr_sandbox_${digest(input.idempotencyKey)}` };
    },

    async submitDisputeEvidence(input) {
      if (!input.file) return { fileId: null };
      const file = createHash('sha256')
        .update(`${input.disputeId}\n${input.file.name}\n${input.file.type}\n`)
        .update(input.file.data)
        .digest('hex')
        .slice(0, 24);
      return { fileId: `file_sandbox_${file}` };
    },
  };
}
