import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn the built CLI and a real mock server; give them room but keep a bound.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
