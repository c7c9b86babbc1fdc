import { defineConfig } from 'vitest/config';

// `npm run test:slow`: long, bounded suites (a packed install, soaks, kill -9 series) that CI runs
// after `npm test`, so `npm test` stays fast.
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
