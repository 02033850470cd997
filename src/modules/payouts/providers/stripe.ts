// Stripe Connect (docs/payouts.md): Express accounts for sellers, separate charges and transfers
// tied to the charge by its transfer_group, reversals, dispute evidence. The same SDK client and
// error mapping as the payment provider.
import type Stripe from 'stripe';
import type { PaymentsConfig } from '../../../config.ts';
import {
  connectedAccount,
  type StripeProviderOptions,
  stripeClient,
  toProviderError,
} from '../../payments/providers/stripe.ts';
import type { PayoutProvider } from '../provider.ts';

export function createStripePayouts(
  config: PaymentsConfig,
  opts: StripeProviderOptions = {},
): PayoutProvider {
  const { stripe, secretKey } = stripeClient(config, opts);
  const wrap = (what: string) => (err: unknown) => {
    throw toProviderError(err, what, secretKey);
  };

  return {
    name: 'stripe',

    async createAccount(input) {
      // Express: Stripe collects the requirements and hosts onboarding; the platform pays the
      // fees and carries the losses (Stripe requires both for the Express Dashboard).
      const params: Stripe.AccountCreateParams = {
        country: 'CA',
        email: input.email,
        controller: {
          stripe_dashboard: { type: 'express' },
          fees: { payer: 'application' },
          losses: { payments: 'application' },
          requirement_collection: 'stripe',
        },
        capabilities: { transfers: { requested: true } },
        // A Canadian account's negative balance (a reversal or dispute after its payout) is
        // debited from its bank account rather than left with the platform.
        settings: { payouts: { debit_negative_balances: true } },
        metadata: { sellerId: input.sellerId },
      };
      const account = await stripe.accounts
        .create(params, { idempotencyKey: input.idempotencyKey })
        .catch(wrap('create a connected account'));
      return connectedAccount(account);
    },

    async onboardingLink(input) {
      const link = await stripe.accountLinks
        .create({
          account: input.accountId,
          refresh_url: input.refreshUrl,
          return_url: input.returnUrl,
          type: 'account_onboarding',
        })
        .catch(wrap('create an onboarding link'));
      return { url: link.url };
    },

    async retrieveAccount(accountId) {
      const account = await stripe.accounts.retrieve(accountId).catch(wrap('retrieve a connected account'));
      return connectedAccount(account);
    },

    async transfer(input) {
      const transfer = await stripe.transfers
        .create(
          {
            amount: input.amountCents,
            currency: 'cad',
            destination: input.accountId,
            transfer_group: input.transferGroup,
            metadata: input.metadata,
          },
          { idempotencyKey: input.idempotencyKey },
        )
        .catch(wrap('transfer to a connected account'));
      return { transferId: transfer.id };
    },

    async reverseTransfer(input) {
      const reversal = await stripe.transfers
        .createReversal(
          input.transferId,
          { amount: input.amountCents, metadata: input.metadata },
          { idempotencyKey: input.idempotencyKey },
        )
        .catch(wrap('reverse a transfer'));
      return { reversalId: reversal.id };
    },

    async submitDisputeEvidence(input) {
      let fileId: string | null = null;
      if (input.file) {
        const file = await stripe.files
          .create({
            purpose: 'dispute_evidence',
            file: { data: input.file.data, name: input.file.name, type: input.file.type },
          })
          .catch(wrap('upload dispute evidence'));
        fileId = file.id;
      }
      await stripe.disputes
        .update(input.disputeId, {
          evidence: {
            uncategorized_text: input.text,
            ...(fileId ? { uncategorized_file: fileId } : {}),
          },
          submit: true,
        })
        .catch(wrap('submit dispute evidence'));
      return { fileId };
    },

    // The platform's own balance, newest first, a hundred a page: the SDK's auto-pagination
    // follows `starting_after` until the period or `limit` ends.
    async balanceTransactions(input) {
      const out: Awaited<ReturnType<NonNullable<PayoutProvider['balanceTransactions']>>> = [];
      if (input.limit <= 0) return out;
      const list = stripe.balanceTransactions.list({
        created: {
          gte: Math.floor(input.createdFrom.getTime() / 1000),
          lt: Math.ceil(input.createdTo.getTime() / 1000),
        },
        limit: 100,
      });
      try {
        for await (const txn of list) {
          out.push({
            id: txn.id,
            type: txn.type,
            amountCents: txn.amount,
            feeCents: txn.fee,
            source: typeof txn.source === 'string' ? txn.source : (txn.source?.id ?? null),
            created: new Date(txn.created * 1000),
          });
          if (out.length >= input.limit) break;
        }
      } catch (err) {
        throw toProviderError(err, 'list balance transactions', secretKey);
      }
      return out;
    },
  };
}
