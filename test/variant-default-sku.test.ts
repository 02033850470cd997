// A SKU a seller did not give is made from the variant's id, and must be one the console's form
// can send back: a SKU starts with a letter or a digit, a random id's key may start with _ or -.
import { describe, expect, it } from 'vitest';
import { sku } from '../src/contract/catalog.ts';
import { defaultSku } from '../src/modules/catalog/variants.ts';

describe('a default SKU', () => {
  it('is the id’s key, with a v before a key that starts with _ or -', () => {
    expect(defaultSku('variants:Ab3_x-9')).toBe('Ab3_x-9');
    expect(defaultSku('variants:_9xKTkdWghgRCxCoS1tn')).toBe('v_9xKTkdWghgRCxCoS1tn');
    expect(defaultSku('variants:-U_aNSkWOLqUwjqH6Ja')).toBe('v-U_aNSkWOLqUwjqH6Ja');
  });

  it('passes the SKU rule whatever the key', () => {
    for (const key of ['_a', '-b', 'c_', '9-', '__', '--']) {
      expect(sku.safeParse(defaultSku(`variants:${key}`)).success, key).toBe(true);
    }
  });
});
