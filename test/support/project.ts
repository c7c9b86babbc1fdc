// A project on the mock: the set-up most command tests start with, written once. It starts the real
// mock for the file, gives each test a fresh temp home (with its project dir) and, when asked, a
// freshly reset and configured mock and the project's files, and runs the CLI there with the mock's
// URL and key. Command test files each copied these hooks; now a file says only what differs (the
// mock's options, its config, its files).
//
// Call it at the top level of a test file: it registers that file's hooks, every time it is called.
// Its state lives in the returned object, never in this module: with `isolate: false` files share
// one module graph, so a module is evaluated (and its top-level hooks registered) once per worker.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { runInProcess, tempHome, type CliOptions, type CliResult } from './cli.js';
import { startMock, type MockHandle } from './mock.js';

export interface MockProjectOptions {
  /** How the mock is started, once for the file. */
  mock?: Parameters<typeof startMock>[0];
  /** Given, the mock is reset before each test and then given this config (`POST /__mock/config`);
   * omitted, the mock is left as it started (for files that charge nothing). */
  config?: Record<string, unknown>;
  /** Written into the project dir (path → content) before each test. */
  files?: Record<string, string>;
}

export interface MockProject {
  /** The file's mock (from beforeAll). */
  readonly mock: MockHandle;
  /** This test's temp home (from beforeEach); its `env` has no service. */
  readonly home: ReturnType<typeof tempHome>;
  /** This test's project dir, `home.cwd`. */
  readonly cwd: string;
  /** The home's env with the mock's URL and API key (a new object each call). */
  env(): NodeJS.ProcessEnv;
  /** `assetgen <args>` in-process, in the project dir with env(); options may replace either. */
  run(args: string[], options?: Partial<CliOptions>): Promise<CliResult>;
  /** The mock's ledger, oldest first. */
  ledger(): Promise<{ amount: number; reason: string; at: string; idempotencyKey?: string }[]>;
}

export function useMockProject(options: MockProjectOptions = {}): MockProject {
  let mock: MockHandle | undefined;
  let home: ReturnType<typeof tempHome> | undefined;
  beforeAll(async () => {
    mock = await startMock(options.mock);
  });
  afterAll(() => mock?.close());
  beforeEach(async () => {
    if (options.config) {
      await project.mock.reset();
      await project.mock.config(options.config);
    }
    home = tempHome();
    for (const [file, content] of Object.entries(options.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(home.cwd, file)), { recursive: true });
      fs.writeFileSync(path.join(home.cwd, file), content);
    }
  });
  afterEach(() => home?.remove());

  const project: MockProject = {
    get mock() {
      if (!mock) throw new Error('the mock is started in beforeAll: use it inside a hook or a test');
      return mock;
    },
    get home() {
      if (!home) throw new Error('the temp home is made in beforeEach: use it inside a test');
      return home;
    },
    get cwd() {
      return project.home.cwd;
    },
    env: () => ({ ...project.home.env, ASSETGEN_BASE_URL: project.mock.url, ASSETGEN_API_KEY: project.mock.apiKey }),
    run: (args, runOptions = {}) =>
      runInProcess(args, { ...runOptions, env: runOptions.env ?? project.env(), cwd: runOptions.cwd ?? project.cwd }),
    ledger: async () => (await project.mock.state()).ledger,
  };
  return project;
}
