// The sandbox payment handler's vault: POST /agentic_commerce/delegate_payment turns a sandbox
// test card into a delegated token (`vt_…`) usable once, for one session, up to its allowance's
// amount, until its expiry (the spec's delegate payment). No card number is stored: only the
// outcome the test card stands for, its brand and last four digits.

import { and, eq, isNull, sql } from 'drizzle-orm';
import type { AcpDelegatePaymentRequest, AcpDelegatePaymentResponse } from '../../contract/acp.ts';
import { isoSecond } from '../../contract/common.ts';
import type { MessageKey } from '../../contract/i18n.ts';
import { text } from '../../contract/i18n.ts';
import { insertInto, ph, query } from '../../db/sql.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { SANDBOX_CARDS } from '../payments/providers/sandbox.ts';
import { randomToken } from '../secrets.ts';
import { type AcpCaller, vaultOwner } from './caller.ts';
import { AcpFailure, acpInvalid, TOKEN_PARAM } from './errors.ts';
import { acpVaultTokens } from './tables.ts';

/** The longest allowance the vault accepts. */
const MAX_ALLOWANCE_MS = 24 * 60 * 60 * 1000;

const cardRefused = (key: MessageKey, param: string) =>
  new AcpFailure(400, { type: 'invalid_request', code: 'invalid_card', param }, text(key));

export async function delegatePayment(
  ctx: RequestContext,
  who: AcpCaller,
  input: AcpDelegatePaymentRequest,
): Promise<AcpDelegatePaymentResponse> {
  const number = input.payment_method.number.replace(/[\s-]/g, '');
  const outcome = (Object.keys(SANDBOX_CARDS) as Array<keyof typeof SANDBOX_CARDS>).find(
    (k) => SANDBOX_CARDS[k] === number,
  );
  if (!outcome) {
    throw cardRefused('acp.error.vaultTestCardsOnly', '$.payment_method.number');
  }
  const { allowance } = input;
  if (allowance.currency !== 'cad') throw cardRefused('acp.error.allowanceCurrency', '$.allowance.currency');
  if (allowance.max_amount <= 0) throw cardRefused('acp.error.allowanceAmount', '$.allowance.max_amount');
  const now = ctx.now();
  const expiresAt = new Date(allowance.expires_at);
  if (!(expiresAt > now) || expiresAt.getTime() - now.getTime() > MAX_ALLOWANCE_MS) {
    throw cardRefused('acp.error.allowanceExpiry', '$.allowance.expires_at');
  }
  const id = `vt_${randomToken()}`;
  const answer: AcpDelegatePaymentResponse = { id, created: isoSecond(now), metadata: input.metadata };
  // The token and the answer under the request's Idempotency-Key go out with the commit: one round trip.
  await inTransaction(ctx, async (tx) => {
    await insertToken.later(tx.db, [
      {
        id,
        owner: vaultOwner(who),
        outcome,
        brand: 'visa',
        last4: number.slice(-4),
        maxAmount: allowance.max_amount,
        currency: allowance.currency,
        checkoutSessionId: allowance.checkout_session_id,
        expiresAt,
        metadata: input.metadata,
        createdAt: now,
      },
    ]);
    await tx.answerWithCommit?.(tx, 201, answer);
  });
  return answer;
}

const insertToken = insertInto('acp_vault_insert', acpVaultTokens);

type VaultRow = typeof acpVaultTokens.$inferSelect;

/**
 * Spends a token, in the caller's transaction, and answers its row when it was unspent (its
 * statement is sent at the call: a pipeline step). Spent and locked in one statement, once: a
 * token that paid (even for a payment refunded since) pays for nothing else. The caller then
 * checks it (checkSpentToken), whose refusal rolls the spending back with the transaction.
 */
export async function spendVaultToken(tx: RequestContext, token: string): Promise<VaultRow | undefined> {
  const [row] = await spend(tx.db, { id: token, now: tx.now() });
  return row;
}

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
  const param = TOKEN_PARAM;
  if (!row && use.token.length <= MAX_TOKEN_LENGTH) {
    const [spent] = await tx.db
      .select({ owner: acpVaultTokens.owner })
      .from(acpVaultTokens)
      .where(eq(acpVaultTokens.id, use.token));
    if (spent?.owner === use.owner) throw acpInvalid('invalid', text('acp.error.tokenUsed'), param);
  }
  if (!row || row.owner !== use.owner) throw acpInvalid('invalid', text('acp.error.tokenUnknown'), param);
  if (row.checkoutSessionId !== use.sessionId) {
    throw acpInvalid('invalid', text('acp.error.tokenOtherSession'), param);
  }
  if (row.expiresAt <= tx.now()) throw acpInvalid('expired', text('acp.error.tokenExpired'), param);
  if (row.maxAmount < use.amount) {
    throw acpInvalid(
      'invalid',
      text('acp.error.tokenBelowTotal', { allowance: row.maxAmount, total: use.amount }),
      param,
    );
  }
  return { outcome: row.outcome };
}

const spend = query('acp_vault_spend', (db, name) =>
  db
    .update(acpVaultTokens)
    .set({ usedAt: sql`${ph('now')}::timestamptz` })
    .where(and(eq(acpVaultTokens.id, ph('id')), isNull(acpVaultTokens.usedAt)))
    .returning()
    .prepare(name),
);
