/** A command used wrongly: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The service will not start as configured (a setting kept in the database is missing): exit code 1. */
export class StartRefusedError extends Error {
  override name = 'StartRefusedError';
}
