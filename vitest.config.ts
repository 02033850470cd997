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

const shared = {
  globalSetup: ['test/helpers/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores: two files at a time, each with its own database.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      { test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: spawning, ...shared } },
      { test: { name: 'spawning', include: spawning, ...shared } },
    ],
  },
});
