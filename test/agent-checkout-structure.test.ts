// The agent checkout is one protocol-neutral core (src/modules/agent-checkout) with one skin per
// protocol (src/modules/acp, src/modules/ucp): no skin imports another, and the core imports no
// skin. Read from the import statements themselves, so a new file is checked as soon as it exists.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpFailureOf, acpParam } from '../src/modules/acp/errors.ts';
import { refusal } from '../src/modules/agent-checkout/problems.ts';
import { mergedItems } from '../src/modules/agent-checkout/request.ts';
import { ucpPath } from '../src/modules/ucp/answer.ts';
import { ucpFailureOf } from '../src/modules/ucp/errors.ts';

const MODULES = resolve(import.meta.dirname, '../src/modules');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The modules a module's files import from (relative imports resolved to their module folder). */
function importedModules(module: string): Array<{ file: string; imports: string }> {
  return filesUnder(join(MODULES, module)).flatMap((file) => {
    const source = readFileSync(file, 'utf8');
    const specifiers = [
      ...source.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
    ]
      .map((m) => m[1] ?? m[2]!)
      .filter((s) => s.startsWith('.'));
    return specifiers.map((s) => {
      const target = relative(MODULES, resolve(file, '..', s));
      return { file: relative(MODULES, file), imports: target.split(/[\\/]/)[0]! };
    });
  });
}

describe('the agent checkout: one core, equal skins', () => {
  it.each([
    ['acp', ['ucp']],
    ['ucp', ['acp']],
    ['agent-checkout', ['acp', 'ucp']],
  ])('%s imports none of %j', (module, forbidden) => {
    const crossing = importedModules(module).filter((i) => (forbidden as string[]).includes(i.imports));
    expect(crossing).toEqual([]);
  });

  it('each skin is registered by one plugin function', async () => {
    expect(typeof (await import('../src/modules/acp/plugin.ts')).acpPlugin).toBe('function');
    expect(typeof (await import('../src/modules/ucp/plugin.ts')).ucpPlugin).toBe('function');
  });
});

describe("the core's neutral problems, said by each skin", () => {
  it('a neutral path is a JSON path into each protocol’s request', () => {
    expect(acpParam('items[2].quantity')).toBe('$.line_items[2].quantity');
    expect(acpParam('fulfillmentDetails.address.city')).toBe('$.fulfillment_details.address.city');
    expect(acpParam('coupons')).toBe('$.discounts.codes');
    expect(acpParam('payment.token')).toBe('$.payment_data.instrument.credential.token');
    expect(acpParam('buyer.email')).toBe('$.buyer.email');
    expect(ucpPath('items[2]')).toBe('$.line_items[2]');
    expect(ucpPath('fulfillmentDetails.address.city')).toBe(
      '$.fulfillment.methods[0].destinations[0].address_locality',
    );
    expect(ucpPath('buyer.email')).toBe('$.buyer.email');
  });

  it("a refusal's kind is each protocol's status: a cancel of an ended session is ACP's 405, UCP's 409", () => {
    const ended = refusal('not_cancelable', 'invalid', 'agent.error.cannotCancel', {
      status: 'completed',
    });
    expect(acpFailureOf(ended)).toMatchObject({ statusCode: 405, fields: { code: 'invalid' } });
    expect(ucpFailureOf(ended as never)).toMatchObject({ statusCode: 409, code: 'invalid_state' });
    const tooBig = (() => {
      try {
        mergedItems([{ id: 'p', quantity: 1000 }]);
      } catch (err) {
        return err as ReturnType<typeof refusal>;
      }
    })()!;
    expect(tooBig).toMatchObject({ kind: 'invalid', path: 'items[0].quantity' });
    expect(acpFailureOf(tooBig).fields).toEqual({
      type: 'invalid_request',
      code: 'invalid',
      param: '$.line_items[0].quantity',
    });
  });
});
