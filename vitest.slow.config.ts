import { defineConfig } from 'vitest/config';

// `npm run test:slow`: test/slow/, the tests that by design start a browser (headless chromium),
// measure a process's memory (peak RSS), or run hundreds of assets, processes or requests (a
// packed install, soaks, kill -9 series). CI runs it after `npm test`, so `npm test` stays fast
// (the rule is in vitest.config.ts).
export default defineConfig({
  esbuild: { include: /\.[cm]?tsx?$/ },
  test: {
    include: ['test/slow/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // The same environment on every machine: no proxy from the shell, UTC (test/support/environment.ts).
    setupFiles: ['test/support/environment.ts'],
  },
});
