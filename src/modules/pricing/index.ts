// Pricing: the money math of cart, checkout and orders (tax, shipping, splits, fees).
// Plain inputs and outputs only: no HTTP, no database, no clock (callers pass the date).
export * from './money.ts';
export * from './shipping.ts';
export * from './tax.ts';
