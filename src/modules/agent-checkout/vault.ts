// The sandbox payment handler's vault: a sandbox test card turned into a delegated token (`vt_…`)
// usable once, for one session, up to its allowance's amount, until its expiry (ACP's delegate
// payment is its wire: acp/routes.ts). No card number is stored: only the outcome the test card
// stands for, its brand and last four digits.
import { inTransaction, type RequestContext } from '../context.ts';
import { SANDBOX_CARDS } from '../payments/providers/sandbox.ts';
import { randomToken } from '../secrets.ts';
import { type AgentCaller, vaultOwner } from './caller.ts';
import { refusal } from './problems.ts';
import { insertVaultToken, spendToken, tokenOwner, unspendToken, type VaultRow } from './queries.ts';

/** The longest allowance the vault accepts. */
const MAX_ALLOWANCE_MS = 24 * 60 * 60 * 1000;

/** What a platform asks the vault for: a card, and what its token may pay. */
export interface VaultRequest {
  cardNumber: string;
  allowance: { currency: string; maxAmount: number; expiresAt: string; sessionId: string };
  metadata: Record<string, string>;
}

/**
 * A new token for a test card, written in a transaction with `finish` (a skin's answer stored
 * with the commit: one round trip). Paths: `card.number`, `allowance.<field>`.
 */
export async function vaultCard(
  ctx: RequestContext,
  who: AgentCaller,
  input: VaultRequest,
  finish: (tx: RequestContext, token: { id: string; createdAt: Date }) => Promise<void>,
): Promise<{ id: string; createdAt: Date }> {
  const number = input.cardNumber.replace(/[\s-]/g, '');
  const outcome = (Object.keys(SANDBOX_CARDS) as Array<keyof typeof SANDBOX_CARDS>).find(
    (k) => SANDBOX_CARDS[k] === number,
  );
  const cardRefused = (key: Parameters<typeof refusal>[2], path: string) =>
    refusal('card_refused', 'invalid_card', key, undefined, path);
  if (!outcome) throw cardRefused('agent.error.vaultTestCardsOnly', 'card.number');
  const { allowance } = input;
  if (allowance.currency !== 'cad') throw cardRefused('agent.error.allowanceCurrency', 'allowance.currency');
  if (allowance.maxAmount <= 0) throw cardRefused('agent.error.allowanceAmount', 'allowance.max_amount');
  const now = ctx.now();
  const expiresAt = new Date(allowance.expiresAt);
  if (!(expiresAt > now) || expiresAt.getTime() - now.getTime() > MAX_ALLOWANCE_MS) {
    throw cardRefused('agent.error.allowanceExpiry', 'allowance.expires_at');
  }
  const token = { id: `vt_${randomToken()}`, createdAt: now };
  await inTransaction(ctx, async (tx) => {
    await insertVaultToken(tx, {
      id: token.id,
      owner: vaultOwner(who),
      outcome,
      brand: 'visa',
      last4: number.slice(-4),
      maxAmount: allowance.maxAmount,
      currency: allowance.currency,
      checkoutSessionId: allowance.sessionId,
      expiresAt,
      metadata: input.metadata,
      createdAt: now,
    });
    await finish(tx, token);
  });
  return token;
}

/**
 * Spends a token, in the caller's transaction, and answers its row when it was unspent (its
 * statement is sent at the call: a pipeline step). Spent and locked in one statement, once: a
 * token that paid (even for a payment refunded since) pays for nothing else. The caller then
 * checks it (checkSpentToken), whose refusal rolls the spending back with the transaction.
 */
export const spendVaultToken = (tx: RequestContext, token: string) => spendToken(tx, token);

/** Gives back a token spent in this transaction. */
export const unspendVaultToken = (tx: RequestContext, token: string) => unspendToken(tx, token);

/** Tokens longer than this are no token of ours: not looked up. */
export const MAX_TOKEN_LENGTH = 100;

/**
 * The spent token's outcome, if it may pay this session's amount: it must be the caller's,
 * unspent until now, for this session, unexpired and cover the amount. A retried complete of a
 * paid session is answered before it gets here.
 */
export async function checkSpentToken(
  tx: RequestContext,
  row: VaultRow | undefined,
  use: { token: string; owner: string; sessionId: string; amount: number },
): Promise<{ outcome: keyof typeof SANDBOX_CARDS }> {
  const refused = (
    code: string,
    key: Parameters<typeof refusal>[2],
    values?: Parameters<typeof refusal>[3],
  ) => refusal('payment_refused', code, key, values, 'payment.token');
  if (!row && use.token.length <= MAX_TOKEN_LENGTH) {
    if ((await tokenOwner(tx, use.token)) === use.owner) throw refused('invalid', 'agent.error.tokenUsed');
  }
  if (!row || row.owner !== use.owner) throw refused('invalid', 'agent.error.tokenUnknown');
  if (row.checkoutSessionId !== use.sessionId) throw refused('invalid', 'agent.error.tokenOtherSession');
  if (row.expiresAt <= tx.now()) throw refused('expired', 'agent.error.tokenExpired');
  if (row.maxAmount < use.amount) {
    throw refused('invalid', 'agent.error.tokenBelowTotal', {
      allowance: row.maxAmount,
      total: use.amount,
    });
  }
  return { outcome: row.outcome };
}
