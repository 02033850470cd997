// One way to the database per module: a module's statements live in its queries.ts (or a
// queries/ folder), the only files under src/modules/ that use the low-level helpers of
// src/db/sql.ts and the batching client (statements built once, `.later`, pipelines, claims
// ahead of a transaction). Services call the named functions those files export.
// And the idempotency plugin's route options: one object.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { idempotencyOptions } from '../src/http/idempotency.ts';

const MODULES = fileURLToPath(new URL('../src/modules/', import.meta.url));

const LOW_LEVEL = /from\s+'[./]*\/db\/(sql|batching-client)(\.ts)?'/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

const isQueries = (relative: string) =>
  path.basename(relative) === 'queries.ts' || relative.split(path.sep).includes('queries');

describe('database access', () => {
  it('under src/modules/, only queries files import db/sql.ts or the batching client', () => {
    const offenders = sourceFiles(MODULES)
      .map((file) => path.relative(MODULES, file))
      .filter((relative) => !isQueries(relative))
      .filter((relative) => LOW_LEVEL.test(readFileSync(path.join(MODULES, relative), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the check sees an import of the low-level helpers', () => {
    expect(LOW_LEVEL.test("import { ph, query } from '../../db/sql.ts';")).toBe(true);
    expect(LOW_LEVEL.test("import type { Ahead } from '../db/batching-client.ts';")).toBe(true);
    expect(LOW_LEVEL.test("import type { Db } from '../../db/index.ts';")).toBe(false);
  });
});

describe('idempotency route options', () => {
  const replayable = async () => true;

  it('none: an optional key, claimed in a round trip of its own', () => {
    expect(idempotencyOptions({})).toEqual({ required: false, claimAhead: false, replayable: undefined });
  });

  it("'required' and the object say the same", () => {
    expect(idempotencyOptions({ idempotency: 'required' })).toEqual(
      idempotencyOptions({ idempotency: { required: true } }),
    );
  });

  it('the object carries every option', () => {
    expect(idempotencyOptions({ idempotency: { required: true, claimAhead: true, replayable } })).toEqual({
      required: true,
      claimAhead: true,
      replayable,
    });
  });
});
