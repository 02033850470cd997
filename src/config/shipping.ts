// CANADA_POST_* and SHIPPING_*: the carrier that rates parcels (docs/shipping.md "Plugging in Canada Post").
// Without CANADA_POST_API_KEY, the built-in rate table rates them.
import { z } from 'zod';
import type { CanadaPostSettings } from '../modules/shipping/canada-post.ts';
import { type Env, httpUrl, intIn, type ReadVariable } from './parse.ts';

export interface ShippingConfig {
  canadaPost: CanadaPostSettings | undefined;
  /** How long a checkout waits for carrier rates before pricing by the table (ms). */
  rateBudgetMs: number;
  /** How long a parcel's carrier rates are reused (ms); at least 10 s, so that the checkout that fetched them finds them. */
  rateCacheMs: number;
  /** Labels and tracking (docs/shipping.md "Labels"). */
  labels: LabelsConfig;
}

export interface LabelsConfig {
  /** Without carrier credentials: how long after its sandbox label an order counts as delivered (ms). */
  sandboxDeliveryMs: number;
  /** How long the tracking job waits before asking again of a parcel not yet delivered (ms). */
  trackingRecheckMs: number;
  /** The sender's phone on Canada Post's labels (its shipment API requires one). */
  senderPhone: string;
  /** The most Canada Post's answer to a label's purchase, PDF or search is waited for (ms). */
  timeoutMs: number;
}

export function shippingConfig(
  env: Env,
  pick: ReadVariable,
  problems: string[],
  deployed: boolean,
): ShippingConfig {
  const rateBudgetMs = pick('SHIPPING_RATE_BUDGET_MS', intIn(50, 10_000), 1500);
  const rateCacheMs = pick('SHIPPING_RATE_CACHE_MS', intIn(10_000, 86_400_000), 10 * 60_000);
  const labels: LabelsConfig = {
    sandboxDeliveryMs: pick('SHIPPING_SANDBOX_DELIVERY_SECONDS', intIn(0, 30 * 86_400), 600) * 1000,
    trackingRecheckMs: pick('SHIPPING_TRACKING_RECHECK_SECONDS', intIn(60, 7 * 86_400), 4 * 3600) * 1000,
    senderPhone: pick(
      'CANADA_POST_SENDER_PHONE',
      z.string().regex(/^[0-9 +().-]{0,25}$/, 'must be a phone number'),
      '',
    ),
    // At most 30 s: a purchase, its PDF and a search fit well within a label's claim (2 minutes).
    timeoutMs: pick('SHIPPING_LABEL_TIMEOUT_MS', intIn(100, 30_000), 30_000),
  };
  const key = env.CANADA_POST_API_KEY?.trim();
  if (!key) return { canadaPost: undefined, rateBudgetMs, rateCacheMs, labels };
  const colon = key.indexOf(':');
  if (colon < 1 || colon === key.length - 1) {
    problems.push('CANADA_POST_API_KEY: must be the API key as user:password');
  }
  const customerNumber = pick(
    'CANADA_POST_CUSTOMER_NUMBER',
    z.string().regex(/^\d{1,10}$/, 'must be 1-10 digits'),
    '',
  );
  if (!customerNumber) problems.push('CANADA_POST_CUSTOMER_NUMBER: required when CANADA_POST_API_KEY is set');
  // With credentials, sellers buy real labels, and Canada Post's labels print the sender's phone.
  if (labels.senderPhone.replace(/\D/g, '').length < 10) {
    problems.push('CANADA_POST_SENDER_PHONE: required when CANADA_POST_API_KEY is set (10 digits or more)');
  }
  const contractId = pick<string | undefined>(
    'CANADA_POST_CONTRACT_ID',
    z.string().regex(/^\d{1,10}$/, 'must be 1-10 digits'),
    undefined,
  );
  const baseUrl = pick('CANADA_POST_BASE_URL', httpUrl, 'https://soa-gw.canadapost.ca');
  if (deployed && baseUrl.startsWith('http:'))
    problems.push('CANADA_POST_BASE_URL: must use https when deployed');
  return {
    canadaPost: {
      baseUrl,
      username: key.slice(0, colon),
      password: key.slice(colon + 1),
      customerNumber,
      ...(contractId ? { contractId } : {}),
    },
    rateBudgetMs,
    rateCacheMs,
    labels,
  };
}
