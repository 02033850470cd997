// Every table of every module, for the connection and for drizzle-kit.
export * from '../modules/auth/tables.ts';
