// Every table of every module in one index (the layout's schema index). The connection does
// not load it (db/index.ts: no relational queries); drizzle-kit reads the modules' tables.ts.

export * from '../modules/addresses/tables.ts';
export * from '../modules/agent-checkout/tables.ts';
export * from '../modules/analytics/tables.ts';
export * from '../modules/audit/tables.ts';
export * from '../modules/auth/tables.ts';
export * from '../modules/cart/tables.ts';
export * from '../modules/catalog/tables.ts';
export * from '../modules/checkout/tables.ts';
export * from '../modules/conversations/tables.ts';
export * from '../modules/coupons/tables.ts';
export * from '../modules/feeds/tables.ts';
export * from '../modules/images/tables.ts';
export * from '../modules/inventory/tables.ts';
export * from '../modules/invoices/tables.ts';
export * from '../modules/ledger/tables.ts';
export * from '../modules/mail/tables.ts';
export * from '../modules/notifications/tables.ts';
export * from '../modules/oauth/tables.ts';
export * from '../modules/orders/tables.ts';
export * from '../modules/payments/tables.ts';
export * from '../modules/payouts/tables.ts';
export * from '../modules/platforms/tables.ts';
export * from '../modules/policies/tables.ts';
export * from '../modules/returns/tables.ts';
export * from '../modules/reviews/tables.ts';
export * from '../modules/shops/tables.ts';
export * from '../modules/system/tables.ts';
