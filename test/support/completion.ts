// The bash completion script set up for the tests that source it (test/commands/completion.test.ts,
// and test/slow/completion-terminal.test.ts in an interactive bash): a temp home, `assetgen` on PATH,
// the script in a file, and the agents cache that `--agent` completes from.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { BIN, runInProcess, tempHome } from './cli.js';

/** A service URL that is never called: completion reads the cache only. */
const SERVICE = 'http://127.0.0.1:9';

export interface CompletionSetup {
  home: ReturnType<typeof tempHome>;
  /** `assetgen` on PATH (the script runs it for the cached ids), and the env bash runs in. */
  env: NodeJS.ProcessEnv;
  /** The script `assetgen completion bash` prints, written to a file to source. */
  script: string;
}

/** A temp home with `assetgen` (the built CLI) on PATH and the bash completion script beside it; remove `home` after. */
export async function completionSetup(): Promise<CompletionSetup> {
  const home = tempHome();
  const bin = path.join(home.home, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'assetgen'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
  const env = { ...home.env, PATH: `${bin}${path.delimiter}${home.env.PATH}`, ASSETGEN_BASE_URL: SERVICE };
  const result = await runInProcess(['completion', 'bash'], { env: home.env, cwd: home.cwd });
  expect(result.code).toBe(0);
  const script = path.join(home.home, 'assetgen.bash');
  fs.writeFileSync(script, result.stdout);
  return { home, env, script };
}

/** The last agents list the service gave (src/config/agents-cache.ts), which `--agent` completes from, in `home`'s config folder. */
export const agentsCacheFile = (home: CompletionSetup['home']): string => path.join(home.env.ASSETGEN_CONFIG_DIR!, 'agents-cache.json');

/** Caches `agents` as the service's list, as if listed on 2026-01-01. */
export function writeAgentsCache(home: CompletionSetup['home'], agents: { id: string; kind: string }[]): void {
  const file = agentsCacheFile(home);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ services: { [SERVICE]: { listedAt: '2026-01-01T00:00:00.000Z', agents } } }));
}

/** A file's completion setup, with its agents cache at hand. */
export type CompletionFixture = CompletionSetup & { cacheFile(): string; writeCache(agents: { id: string; kind: string }[]): void };

/** The file's completion setup: made before its tests (beforeAll), removed after them (afterAll); read its fields inside tests. */
export function useCompletionSetup(): CompletionFixture {
  const setup = {
    cacheFile: () => agentsCacheFile(setup.home),
    writeCache: (agents) => writeAgentsCache(setup.home, agents),
  } as CompletionFixture;
  beforeAll(async () => {
    Object.assign(setup, await completionSetup());
  });
  afterAll(() => setup.home?.remove());
  return setup;
}
