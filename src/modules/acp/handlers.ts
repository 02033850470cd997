// The payment handlers a session offers (capabilities.payment.handlers), as ACP describes them:
// the core's (agent-checkout/handlers.ts), the sandbox's own vault or Stripe's Shared Payment
// Tokens (docs/acp.md "Payment").
import type { AcpPaymentHandler } from '../../contract/acp.ts';
import { type HandlerId, SANDBOX_HANDLER_ID, STRIPE_HANDLER_ID } from '../agent-checkout/handlers.ts';
import { SANDBOX_CARDS } from '../payments/providers/sandbox.ts';
import { ACP_VERSION } from './answer.ts';

export function acpHandlers(publicBaseUrl: string, offered: HandlerId[]): AcpPaymentHandler[] {
  return offered.map((id) => (id === SANDBOX_HANDLER_ID ? sandboxHandler(publicBaseUrl) : stripeHandler()));
}

function sandboxHandler(publicBaseUrl: string): AcpPaymentHandler {
  const docs = `${publicBaseUrl}/docs`;
  return {
    id: SANDBOX_HANDLER_ID,
    name: 'dev.portage.sandbox_card',
    display_name: 'Sandbox test card',
    version: ACP_VERSION,
    spec: docs,
    requires_delegate_payment: true,
    requires_pci_compliance: false,
    psp: 'portage_sandbox',
    config_schema: docs,
    instrument_schemas: [docs],
    config: {
      delegate_payment_url: `${publicBaseUrl}/agentic_commerce/delegate_payment`,
      test_cards: { ...SANDBOX_CARDS },
    },
  };
}

/** The tokenized card handler of the spec, with Stripe as its PSP. */
function stripeHandler(): AcpPaymentHandler {
  return {
    id: STRIPE_HANDLER_ID,
    name: 'dev.acp.tokenized.card',
    display_name: 'Card',
    version: ACP_VERSION,
    spec: 'https://acp.dev/handlers/tokenized.card',
    requires_delegate_payment: true,
    requires_pci_compliance: false,
    psp: 'stripe',
    config_schema: 'https://acp.dev/schemas/handlers/tokenized.card/config.json',
    instrument_schemas: ['https://acp.dev/schemas/handlers/tokenized.card/instrument.json'],
    config: {
      psp: 'stripe',
      accepted_brands: ['visa', 'mastercard', 'amex'],
      accepted_funding_types: ['credit', 'debit'],
      supports_3ds: false,
    },
  };
}
