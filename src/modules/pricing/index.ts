// Pricing: the money math of cart, checkout and orders (tax, shipping, splits, fees, and the
// quote that puts them together).
// Plain inputs and outputs only: no HTTP, no database, no clock (callers pass the date).
export * from './money.ts';
export * from './quote.ts';
export * from './shipping.ts';
export * from './tax.ts';
