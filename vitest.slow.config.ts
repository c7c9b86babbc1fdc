import { defineConfig } from 'vitest/config';

// `npm run test:slow`: test/slow/, the tests that by design start a browser (headless chromium),
// measure a process's memory (peak RSS), run hundreds of assets, processes or requests (a
// packed install, soaks, kill -9 series, a 2,000-frame atlas), kill a build with kill -9 to resume
// it, or drive the CLI on a pseudo-terminal. CI runs it after `npm test`, so `npm test` stays fast
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
