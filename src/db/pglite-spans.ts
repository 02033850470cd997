// PGlite's statements as spans when tracing is on (docs/operations.md "Traces"): the pg
// instrumentation sees only the PostgreSQL driver, and PGlite runs in this process. A span per
// statement, named by its first word, with the statement's text (its parameters never: they are
// values people typed). Off, PGlite is used as it is.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { inChildSpan, tracingOn } from '../telemetry/tracing.ts';

type Queryable = PGlite | Transaction;

const verb = (text: string) => /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';

function traced<T extends Queryable>(target: T): T {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t);
      if (prop === 'query' || prop === 'exec') {
        return (text: string, ...rest: unknown[]) =>
          inChildSpan(
            `pglite ${verb(text)}`,
            () => (value as (...a: unknown[]) => Promise<unknown>).call(t, text, ...rest),
            {
              'db.system.name': 'postgresql',
              'db.query.text': text,
            },
          );
      }
      if (prop === 'transaction') {
        return (fn: (tx: Transaction) => Promise<unknown>) =>
          (value as PGlite['transaction']).call(t, (tx) => fn(traced(tx)));
      }
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}

/** The client drizzle is given: `client` itself unless tracing is on. */
export const pgliteWithSpans = (client: PGlite): PGlite => (tracingOn() ? traced(client) : client);
