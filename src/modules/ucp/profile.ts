// Portage's business profile, served at /.well-known/ucp (docs/ucp.md "Discovery"): the
// dev.ucp.shopping service over REST and MCP, the capabilities we offer (checkout with its fulfillment
// and discount extensions, order), the payment handlers of this deployment (the sandbox's vault,
// or Stripe's Shared Payment Tokens: the core's handlers, agent-checkout/handlers.ts), and our
// signing keys.
import { SCOPE_DESCRIPTIONS } from '../../contract/scopes.ts';
import { UCP_VERSION, type UcpBusinessProfile } from '../../contract/ucp.ts';
import { type HandlerId, SANDBOX_HANDLER_ID, STRIPE_HANDLER_ID } from '../agent-checkout/handlers.ts';
import { SANDBOX_CARDS } from '../payments/providers/sandbox.ts';
import type { UcpKeyRing } from './keys.ts';

const SPEC = `https://ucp.dev/${UCP_VERSION}/specification`;
const SCHEMAS = `https://ucp.dev/${UCP_VERSION}/schemas`;

export const CHECKOUT = 'dev.ucp.shopping.checkout';
export const FULFILLMENT = 'dev.ucp.shopping.fulfillment';
export const DISCOUNT = 'dev.ucp.shopping.discount';
export const ORDER = 'dev.ucp.shopping.order';
export const IDENTITY_LINKING = 'dev.ucp.common.identity_linking';
export const CATALOG_SEARCH = 'dev.ucp.shopping.catalog.search';
export const CATALOG_LOOKUP = 'dev.ucp.shopping.catalog.lookup';

/** Where UCP's REST operations live: `{endpoint}/checkout-sessions`, `{endpoint}/orders/{id}`. */
export const REST_PREFIX = '/ucp/v1';
/** Where the MCP binding's tools are served (src/mcp/ucp.ts); platforms learn it only from here. */
export const MCP_PATH = '/ucp/mcp';

/**
 * A handler's registry name (reverse-domain). Ours carry no spec/schema URLs: the spec wants them
 * on the name's own domain, and a deployment's domain is not Portage's (docs/ucp.md "Payment").
 */
const HANDLER_NAMES: Record<HandlerId, string> = {
  [SANDBOX_HANDLER_ID]: 'dev.portage.sandbox_card',
  [STRIPE_HANDLER_ID]: 'com.stripe.shared_payment_token',
};

/** Each handler's configuration: where the sandbox vaults its test cards, or what Stripe's tokens take. */
function handlerConfig(publicBaseUrl: string, id: HandlerId): Record<string, unknown> {
  return id === SANDBOX_HANDLER_ID
    ? {
        delegate_payment_url: `${publicBaseUrl}/agentic_commerce/delegate_payment`,
        test_cards: { ...SANDBOX_CARDS },
      }
    : {
        psp: 'stripe',
        accepted_brands: ['visa', 'mastercard', 'amex'],
        accepted_funding_types: ['credit', 'debit'],
        supports_3ds: false,
      };
}

export type UcpPaymentHandlers = NonNullable<UcpBusinessProfile['ucp']['payment_handlers']>;

export function ucpPaymentHandlers(publicBaseUrl: string, offered: HandlerId[]): UcpPaymentHandlers {
  const registry: UcpPaymentHandlers = {};
  for (const id of offered) {
    registry[HANDLER_NAMES[id]] = [
      {
        id,
        version: UCP_VERSION,
        available_instruments: [{ type: 'card' }],
        config: handlerConfig(publicBaseUrl, id),
      },
    ];
  }
  return registry;
}

export function businessProfile(deps: {
  publicBaseUrl: string;
  paymentHandlers: UcpPaymentHandlers;
  keys: UcpKeyRing;
}): UcpBusinessProfile {
  const capability = (name: string, doc: string, schema: string, parent?: string) => ({
    [name]: [
      {
        version: UCP_VERSION,
        spec: `${SPEC}/${doc}`,
        schema: `${SCHEMAS}/${schema}`,
        ...(parent ? { extends: parent } : {}),
      },
    ],
  });
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        'dev.ucp.shopping': [
          {
            version: UCP_VERSION,
            spec: `${SPEC}/overview`,
            transport: 'rest',
            schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/rest.openapi.json`,
            endpoint: `${deps.publicBaseUrl}${REST_PREFIX}`,
          },
          {
            version: UCP_VERSION,
            spec: `${SPEC}/overview`,
            transport: 'mcp',
            schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/mcp.openrpc.json`,
            endpoint: `${deps.publicBaseUrl}${MCP_PATH}`,
          },
        ],
      },
      capabilities: {
        ...capability(CHECKOUT, 'checkout', 'shopping/checkout.json'),
        ...capability(FULFILLMENT, 'fulfillment', 'shopping/fulfillment.json', CHECKOUT),
        ...capability(DISCOUNT, 'discount', 'shopping/discount.json', CHECKOUT),
        ...capability(ORDER, 'order', 'shopping/order.json'),
        ...capability(CATALOG_SEARCH, 'catalog/search', 'shopping/catalog_search.json'),
        ...capability(CATALOG_LOOKUP, 'catalog/lookup', 'shopping/catalog_lookup.json'),
        [IDENTITY_LINKING]: [
          {
            version: UCP_VERSION,
            spec: `${SPEC}/identity-linking`,
            schema: `${SCHEMAS}/common/identity_linking.json`,
            // The operations these cover need a linked person's token; checkout does not (a
            // platform's key buys as a guest), so its scope is taken but not listed.
            config: {
              scopes: {
                'dev.ucp.shopping.order:read': {
                  description: { plain: SCOPE_DESCRIPTIONS['dev.ucp.shopping.order:read'] },
                },
                'dev.ucp.shopping.order:manage': {
                  description: { plain: SCOPE_DESCRIPTIONS['dev.ucp.shopping.order:manage'] },
                },
              },
            },
          },
        ],
      },
      payment_handlers: deps.paymentHandlers,
    },
    signing_keys: deps.keys.jwks,
  };
}
