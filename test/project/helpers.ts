// Shared by the build tests: temp project directories and manifests parsed from text.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import type { Lock, Manifest } from '../../src/pipeline/records.js';
import { journalFileFor } from '../../src/pipeline/lock-journal.js';
import { parseManifest } from '../../src/pipeline/manifest.js';
import type { MockHandle } from '../support/mock.js';

export const EXAMPLE = fs.readFileSync(new URL('./fixtures/example.yaml', import.meta.url), 'utf8');
export const STARTER = fs.readFileSync(new URL('../../templates/assetgen.yaml', import.meta.url), 'utf8');

/**
 * A fresh directory removed when the test that made it finishes. (Not a module-level afterEach:
 * with `isolate: false` a module is loaded once per worker, so its hook would be added to the
 * first test file only, and the directories of later files would be left behind.)
 */
export function tempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-build-')));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Bounded (2 s): until a file made now has an mtime past every one of `files`' ctime, i.e. the file
 * system's clock has moved on since they changed; a plan from then on records them in the plan
 * cache (src/pipeline/plan-cache.ts leaves out files changed in the tick its hashing starts).
 */
export async function afterFileSystemTick(files: string[]): Promise<void> {
  const newest = files.map((f) => fs.statSync(f, { bigint: true }).ctimeNs).reduce((a, b) => (a > b ? a : b));
  const probe = path.join(path.dirname(files[0]), '.clock-probe');
  for (let tries = 0; tries < 400; tries++) {
    fs.writeFileSync(probe, '');
    const now = fs.statSync(probe, { bigint: true }).mtimeNs;
    fs.rmSync(probe);
    if (now > newest) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the file system clock did not move in 2 s');
}

/** Writes files (path → content) under `root`, creating folders. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
}

export function manifestOf(text: string, root = '/project'): Manifest {
  return parseManifest(text, { file: path.join(root, 'assetgen.yaml'), display: 'assetgen.yaml' });
}

/** The message of what `fn` throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, none was thrown');
}

/** A lock with a finished video and a two-file workflow, as the lock and writer tests use it. */
export const SHA = 'a'.repeat(64);
export const sampleLock = (): Lock => ({
  lockfileVersion: 1,
  assets: {
    torch: {
      kind: 'video',
      spec: 's2',
      files: [{ size: 3, sha256: SHA, path: 'fx/torch.gif' }],
      credits: 180,
      finishedAt: '2026-01-02T00:00:00.000Z',
    },
    hero: {
      workflow: 'wf_sprite_sheet',
      kind: 'workflow',
      files: [
        { path: 'sprites/hero-walk.png', sha256: SHA, size: 1 },
        { path: 'sprites/hero-idle.png', sha256: SHA, size: 1 },
      ],
      spec: 's1',
    },
  },
});

/**
 * Runs `build` (a build of the project in `root`) while the mock holds its calls to `endpoint`,
 * and runs `meanwhile` once the first of them, `id`'s paid call, is held — a change the build
 * finds only after it planned (the journal records a paid call before it is sent), made while the
 * call is out, however slow the machine. Then lets the call go on. `id`'s call must be the
 * build's first to `endpoint` (build the others first).
 */
export async function whilePaying<T>(
  mock: MockHandle,
  root: string,
  id: string,
  build: () => Promise<T>,
  meanwhile: () => void,
  endpoint = 'generate',
): Promise<T> {
  const journal = journalFileFor(path.join(root, 'assetgen.lock'));
  await mock.hold([endpoint]);
  let ended = false;
  const running = build().finally(() => (ended = true));
  try {
    for (let tries = 0; (await mock.state()).held === 0; tries++) {
      if (ended || tries >= 2_000) throw new Error(`the build made no ${endpoint} call (ended: ${ended})`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (!fs.readFileSync(journal, 'utf8').includes(`"id":${JSON.stringify(id)}`))
      throw new Error(`the build's first ${endpoint} call is not ${id}'s: build the assets before it first`);
    meanwhile();
  } finally {
    await mock.hold([]);
  }
  return running;
}

/**
 * The assetgen command lines of a CI workflow's steps or scripts (docs/ci.md), as argument lists:
 * `\` continuations joined, what follows `>` dropped, a word's surrounding double quotes removed.
 */
export function assetgenCommands(text: string): string[][] {
  return text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.includes('assetgen '))
    .map((line) =>
      line
        .slice(line.indexOf('assetgen ') + 'assetgen '.length)
        .split('>')[0]!
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/^"|"$/g, '')),
    );
}
