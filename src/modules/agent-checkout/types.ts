// The shapes every part of the agent checkout shares: its dependencies, a session's state, and
// the hook a skin runs inside an operation's transaction.
import type { AuthService } from '../auth/service.ts';
import type { CheckoutDeps } from '../checkout/service.ts';
import type { checkoutSessions } from '../checkout/tables.ts';
import type { RequestContext } from '../context.ts';
import type { OrdersDeps } from '../orders/service.ts';
import type { HandlerId } from './handlers.ts';
import type { SessionRow } from './queries.ts';

export type { SessionRow };

export interface AgentCheckoutDeps extends CheckoutDeps, OrdersDeps {
  /** What this instance remembers of a person's sign-ins (forgotten when a purchase ends them). */
  auth?: Pick<AuthService, 'forget'>;
  /** At most this many live holds per platform (PLATFORM_MAX_HOLDS). */
  maxPlatformHolds: number;
  /** The sandbox's signer, when the sandbox is the provider (its vault handler is offered then). */
  sandbox?: { sign(payload: string, now: Date): string };
  /** The payment handlers offered (handlers.ts offeredHandlers). */
  handlers: HandlerId[];
}

/** The protocol a session belongs to: its id's prefix, so one protocol never reads another's sessions. */
export type SessionProtocol = string;

/** A session as it is now: its row, and the checkout holding its stock (undefined when none, or not read). */
export interface SessionState {
  row: SessionRow;
  checkout: typeof checkoutSessions.$inferSelect | undefined;
}

/**
 * What a skin does with the session's new state inside the operation's transaction, before its
 * commit (its answer, stored under the request's Idempotency-Key with that commit).
 */
export type Finish = (tx: RequestContext, state: SessionState) => Promise<void>;
