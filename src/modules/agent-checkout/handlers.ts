// The payment handlers a session offers: the sandbox's own vault when the sandbox is the
// provider, and the provider's delegated tokens (Stripe's Shared Payment Tokens) when it can
// charge them (docs/acp.md "Payment"). Never both: a token is charged by the provider that takes
// the money. Each skin describes them in its protocol (acp/handlers.ts, ucp/profile.ts).
import type { PaymentProvider } from '../payments/provider.ts';

/** The sandbox's handler: delegated tokens (`vt_…`) from our own vault (vault.ts). */
export const SANDBOX_HANDLER_ID = 'portage_sandbox_card';
/** Stripe's: a Shared Payment Token (`spt_…`) the platform was granted, charged with the SDK. */
export const STRIPE_HANDLER_ID = 'stripe_shared_payment_token';

export type HandlerId = typeof SANDBOX_HANDLER_ID | typeof STRIPE_HANDLER_ID;

export function offeredHandlers(deps: {
  provider: Pick<PaymentProvider, 'chargeDelegated'>;
  sandbox?: unknown;
}): HandlerId[] {
  if (deps.sandbox) return [SANDBOX_HANDLER_ID];
  return deps.provider.chargeDelegated ? [STRIPE_HANDLER_ID] : [];
}
