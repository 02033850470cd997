// Every product-language test again, on the SQL engine (SEARCH_INDEX=sql): both engines answer alike.
import { afterAll } from 'vitest';

process.env.PORTAGE_TEST_SEARCH_INDEX = 'sql';
afterAll(() => {
  delete process.env.PORTAGE_TEST_SEARCH_INDEX;
});
await import('./product-languages.test.ts');
