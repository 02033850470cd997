/** A command used wrongly: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
