import { defineConfig } from 'vitest/config';
import { fastTempRoot } from './test/support/temp-root.js';

const tempRoot = fastTempRoot();

export default defineConfig({
  // The entry and the command table are CommonJS TypeScript (.cts); let esbuild compile them too.
  esbuild: { include: /\.[cm]?tsx?$/ },
  test: {
    include: ['test/**/*.test.ts'],
    // The two tiers (README, "Quick start"): a test file goes in test/slow/, run by `npm run
    // test:slow` (vitest.slow.config.ts) after `npm test` in CI, when by design it starts a browser,
    // measures a process's memory, runs hundreds of assets, processes or requests (a soak, a
    // series, a packed install, a 2,000-frame atlas), kills a build with kill -9 to resume it, or
    // drives the CLI on a pseudo-terminal. Everything else is `npm test`, kept fast.
    exclude: ['test/slow/**', '**/node_modules/**'],
    // End-to-end tests spawn the built CLI and a real mock server; give them room but keep a bound.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // V8's parallel GC helper threads off in the workers, as in every phase of `npm test`
    // (package.json runs each with --single-threaded-gc): four workers, the CLIs they spawn and the
    // phases beside them keep both cores busy, so the helpers only contend (docs/benchmarks.md,
    // "npm test: GC helper threads"). The CLIs under test run as users run them, without it.
    poolOptions: { forks: { execArgv: ['--single-threaded-gc'] } },
    // The same environment on every machine: no proxy from the shell, UTC (test/support/environment.ts).
    setupFiles: ['test/support/environment.ts'],
    // Temp files on a tmpfs where Linux has one with room (test/support/temp-root.ts): the same
    // files, a third of the kernel time to make and remove them.
    env: tempRoot ? { TMPDIR: tempRoot } : {},
    // Four workers on this 2-core machine, not vitest's default of cores − 1 (one): most tests wait
    // on a spawned CLI or a socket (vitest alone uses ~70% of both cores with three), so more workers
    // fill that time (vitest alone at ~1,030 tests: three workers 45 s, four 38–40 s). With the
    // build down to its JavaScript (~1 s, scripts/build.mjs), lint and the format check beside it
    // still end well before vitest (docs/benchmarks.md, "npm test wall time"). A fixed pool: letting
    // it shrink (minWorkers below maxWorkers) ended runs with tinypool's "Terminating worker thread".
    maxWorkers: 4,
    minWorkers: 4,
    // One module graph per worker instead of one per file: starting a fresh fork and re-importing
    // vitest for each of 30+ files was a third of the suite's time. Tests therefore spy on shared
    // modules (vi.spyOn + restore) rather than replacing them with vi.mock.
    isolate: false,
  },
});
