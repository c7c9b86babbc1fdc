import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The entry and the command table are CommonJS TypeScript (.cts); let esbuild compile them too.
  esbuild: { include: /\.[cm]?tsx?$/ },
  test: {
    include: ['test/**/*.test.ts'],
    // Long suites run in `npm run test:slow` (vitest.slow.config.ts).
    exclude: ['test/slow/**', '**/node_modules/**'],
    // End-to-end tests spawn the built CLI and a real mock server; give them room but keep a bound.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Three workers on this 2-core machine, not vitest's default of cores − 1 (one): most tests wait
    // on a spawned CLI or a socket, so more workers fill that time (vitest alone at 1,005 tests: two
    // workers 60 s, three 43 s, four 38 s; four starves lint and the format check beside it, and
    // leaves less headroom for the timing of a loaded CI machine). A fixed pool: letting it shrink
    // (minWorkers below maxWorkers) ended runs with tinypool's "Terminating worker thread".
    maxWorkers: 3,
    minWorkers: 3,
    // One module graph per worker instead of one per file: starting a fresh fork and re-importing
    // vitest for each of 30+ files was a third of the suite's time. Tests therefore spy on shared
    // modules (vi.spyOn + restore) rather than replacing them with vi.mock.
    isolate: false,
  },
});
