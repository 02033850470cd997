import { defineConfig } from 'vitest/config';

// Tests that start processes (the CLI, the tool server, the seed command, headless Chromium)
// are their own project: `npm run test:fast` runs everything else in about half the time.
const spawning = [
  'test/cli.test.ts',
  'test/mcp.test.ts',
  'test/seed.test.ts',
  'test/*.spawn.test.ts',
  'test/*.browser.test.ts',
];

// The fast project shares one module cache per worker (isolate: false): importing the app
// anew for each file cost more than the files' tests (15.5 against 8.9 min for the project on
// PostgreSQL). Files that must start from fresh modules run isolated: a module mock
// (auth.test.ts wraps @node-rs/argon2) and the files that import another test file to run it
// again under another setting (*-sql.test.ts).
const isolated = ['test/auth.test.ts', 'test/*-sql.test.ts'];

// Budgets, not targets: a test takes at most a tenth of its timeout on an idle machine, so a
// machine two or three times slower (a benchmark alongside, CI on a shared host) still passes.
// The budget reporter lists the tests over that tenth (docs/testing.md).
const fast = { testTimeout: 60_000, hookTimeout: 120_000 };
const slow = { testTimeout: 180_000, hookTimeout: 300_000 };
const globalSetup = ['test/helpers/global-setup.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores: two files at a time, each with its own database.
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ['default', './test/helpers/budget-reporter.ts'],
    projects: [
      {
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...spawning, ...isolated],
          isolate: false,
          globalSetup,
          ...fast,
        },
      },
      { test: { name: 'fast-isolated', include: isolated, globalSetup, ...fast } },
      { test: { name: 'spawning', include: spawning, globalSetup, ...slow } },
    ],
  },
});
