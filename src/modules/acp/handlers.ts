// The payment handlers a session offers (capabilities.payment.handlers): the sandbox's own vault
// when the sandbox is the provider, and Stripe's Shared Payment Tokens when Stripe is
// (docs/acp.md "Payment"). Never both: a token is charged by the provider that takes the money.
import type { AcpPaymentHandler } from '../../contract/acp.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import { SANDBOX_CARDS } from '../payments/providers/sandbox.ts';
import { ACP_VERSION } from './answer.ts';

/** The sandbox's handler: delegated tokens (`vt_…`) from our own vault (vault.ts). */
export const SANDBOX_HANDLER_ID = 'portage_sandbox_card';
/** Stripe's: a Shared Payment Token (`spt_…`) the platform was granted, charged with the SDK. */
export const STRIPE_HANDLER_ID = 'stripe_shared_payment_token';

export function acpHandlers(deps: {
  publicBaseUrl: string;
  provider: Pick<PaymentProvider, 'chargeDelegated'>;
  sandbox?: unknown;
}): AcpPaymentHandler[] {
  const docs = `${deps.publicBaseUrl}/docs`;
  if (deps.sandbox) {
    return [
      {
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
          delegate_payment_url: `${deps.publicBaseUrl}/agentic_commerce/delegate_payment`,
          test_cards: { ...SANDBOX_CARDS },
        },
      },
    ];
  }
  if (!deps.provider.chargeDelegated) return [];
  // The tokenized card handler of the spec, with Stripe as its PSP.
  return [
    {
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
    },
  ];
}
