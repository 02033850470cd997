// A test file's app with Canada Post's credentials, pointed at a fake Canada Post started for it
// (beforeAll; closed in afterAll, after the app): useTestApp with the fake's settings. Apart from
// fake-canada-post.ts, which the benchmarks start outside vitest.
import { afterAll, beforeAll } from 'vitest';
import { type TestApp, useTestApp } from './app.ts';
import { standIn, type TestDatabase } from './db.ts';
import { type FakeCanadaPost, startFakeCanadaPost } from './fake-canada-post.ts';

export function useCanadaPostApp(
  /** More environment (a rate budget, a label timeout...). */
  env: Record<string, string> = {},
): { t: TestApp; database: TestDatabase; carrier: FakeCanadaPost } {
  let carrier: FakeCanadaPost | undefined;
  beforeAll(async () => {
    carrier = await startFakeCanadaPost({ username: 'portage-user', password: 'portage-password' });
  });
  afterAll(async () => {
    const open = carrier;
    carrier = undefined;
    await open?.close();
  });
  const { t, database } = useTestApp(() => ({
    env: {
      CANADA_POST_API_KEY: 'portage-user:portage-password',
      CANADA_POST_CUSTOMER_NUMBER: '2004381',
      CANADA_POST_BASE_URL: carrier!.url,
      CANADA_POST_SENDER_PHONE: '416 555 0199',
      ...env,
    },
  }));
  return { t, database, carrier: standIn('useCanadaPostApp(): the fake Canada Post', () => carrier) };
}
