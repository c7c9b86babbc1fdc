// `build --lock-out <file>` (docs/build.md, shards): a finished lock-out file left from an earlier
// round, started from an older assetgen.lock, is refused (exit 2, before anything is paid) instead of
// planned from — it would pay again for what assetgen.lock records, a result `lock merge` then
// refuses as stale; the same shard's file from the same project lock (a rerun) is still built from;
// and --lock-out naming the project's own lock is refused. A service that forgets idempotency keys
// at once, so no replay hides a second charge.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/pipeline/shard.js';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { ledgerOf } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({
  mock: { credits: 10_000 },
  config: { credits: 10_000, faults: { rate: 0 }, idempotency: { maxAgeMs: 1 } },
});

const IDS = ['sword', 'shield', 'gem', 'coin'];
const manifest = (gem = 'a blue gem'): string =>
  `defaults: { agent: icon-forge, out: assets/icons/ }\nassets:\n${IDS.map((id) => `  - { id: ${id}, prompt: ${id === 'gem' ? gem : `a ${id}`} }\n`).join('')}`;
const writeManifest = (gem?: string): void => fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), manifest(gem));
const GEM_SHARD = shardOf('gem', 2);
const shardFile = (k: number): string => `ci/shard-${k}.lock`;
const file = (name: string): string => path.join(project.cwd, name);

async function ok(args: string[]): Promise<CliResult> {
  const result = await project.run(args);
  expect(result.code, `assetgen ${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result;
}

const shardArgs = (k: number): string[] => ['build', '--yes', '--shard', `${k}/2`, '--lock-out', shardFile(k)];

/** Round 1: both shards built into ci/, merged. */
async function firstRound(): Promise<void> {
  writeManifest();
  for (const k of [1, 2]) await ok([...shardArgs(k), '-q']);
  await ok(['lock', 'merge', shardFile(1), shardFile(2), '-q']);
}

describe('a --lock-out file started from an older assetgen.lock', () => {
  it('is refused before anything is paid, naming the file and the asset and what to do; removed, the shard builds from the current lock for free', async () => {
    await firstRound();
    // On main, gem changes and is built (paid once): assetgen.lock moves on.
    writeManifest('a red gem');
    const { charges: onMain } = await ledgerOf(project, () => ok(['build', 'gem', '--yes', '-q']));
    expect(onMain).toBe(1);
    const lockOut = fs.readFileSync(file(shardFile(GEM_SHARD)), 'utf8');
    const projectLock = fs.readFileSync(file('assetgen.lock'), 'utf8');

    // Round 2, the same shard command with round 1's file still there: refused, for free.
    for (const extra of [[], ['--force', 'gem'], ['--dry-run']]) {
      const { result, charges } = await ledgerOf(project, () => project.run([...shardArgs(GEM_SHARD), ...extra, '--json']));
      expect(result.code, result.stderr).toBe(2);
      expect(charges).toBe(0);
      const error = jsonError(result);
      expect(error.message).toBe(
        `${shardFile(GEM_SHARD)} was started from an older assetgen.lock: for asset "gem", assetgen.lock now holds an entry that lock never had, ` +
          'so a build from it would plan against old entries and could pay again for what assetgen.lock already records.',
      );
      expect(error.hint).toContain(
        `If ${shardFile(GEM_SHARD)} was never merged, merge it first (assetgen lock merge ${shardFile(GEM_SHARD)} …)`,
      );
      expect(error.hint).toContain(`remove it (and .shard-${GEM_SHARD}.lock.journal beside it, if there is one) and build the shard again`);
      expect(error.hint).toContain('Nothing was charged.');
    }
    expect(fs.readFileSync(file(shardFile(GEM_SHARD)), 'utf8')).toBe(lockOut);
    expect(fs.readFileSync(file('assetgen.lock'), 'utf8')).toBe(projectLock);

    // What the hint says: it was merged, so remove it and build the shard again — nothing to pay.
    fs.rmSync(file(shardFile(GEM_SHARD)));
    const { result, charges } = await ledgerOf(project, () => ok([...shardArgs(GEM_SHARD), '--json']));
    expect(charges).toBe(0);
    const outcomes = (parseJson(result).items as { id: string; outcome: string }[]).map((item) => item.outcome);
    expect(new Set(outcomes)).toEqual(new Set(['unchanged']));
    await ok(['lock', 'merge', shardFile(1), shardFile(2), '-q']);
    expect(fs.readFileSync(file('assetgen.lock'), 'utf8')).toBe(projectLock);
  });

  it("is still built from when its start is the project's lock: the rerun of a finished shard, before or after its merge and another shard's", async () => {
    writeManifest();
    await ok(['build', '--yes', '-q']);
    writeManifest('a red gem');
    const other = 3 - GEM_SHARD;
    // The gem's shard pays once; its reruns (same file, same or merged project lock) pay nothing.
    const { charges: built } = await ledgerOf(project, () => ok([...shardArgs(GEM_SHARD), '-q']));
    expect(built).toBe(1);
    const rerun = async (): Promise<void> => {
      const { charges } = await ledgerOf(project, () => ok([...shardArgs(GEM_SHARD), '-q']));
      expect(charges).toBe(0);
    };
    await rerun();
    // The other shard changes its own assets (--force) and is merged first: out of the gem shard's scope.
    await ok([...shardArgs(other), '--force', '-q']);
    await ok(['lock', 'merge', shardFile(other), '-q']);
    await rerun();
    await ok(['lock', 'merge', shardFile(1), shardFile(2), '-q']);
    await rerun();
    const { charges } = await ledgerOf(project, () => ok(['build', '--yes', '-q']));
    expect(charges).toBe(0);
  });
});

describe("--lock-out naming the project's own lock", () => {
  it('is refused with exit 2 before anything is paid, whichever way the path names it', async () => {
    writeManifest();
    const names = ['assetgen.lock', './ci/../assetgen.lock', path.join(project.cwd, 'assetgen.lock')];
    for (const name of names) {
      for (const extra of [[], ['--dry-run']]) {
        const { result, charges } = await ledgerOf(project, () =>
          project.run(['build', '--yes', '--shard', '1/2', '--lock-out', name, ...extra, '--json']),
        );
        expect(result.code, result.stderr).toBe(2);
        expect(charges).toBe(0);
        const error = jsonError(result);
        expect(error.message).toBe(
          `--lock-out ${name} is the project's own lock, assetgen.lock: --lock-out names a shard's lock, a file of its own that \`assetgen lock merge\` then joins into it.`,
        );
        expect(error.hint).toBe(
          'Name another file (--lock-out shard-1.lock, say), or leave --lock-out out to build into assetgen.lock itself. Nothing was charged.',
        );
      }
    }
    expect(fs.existsSync(file('assetgen.lock'))).toBe(false);
    // With the lock there, a link to it is the same file.
    await ok(['build', '--yes', '-q']);
    const lock = fs.readFileSync(file('assetgen.lock'), 'utf8');
    fs.mkdirSync(file('ci'));
    fs.symlinkSync('../assetgen.lock', file('ci/link.lock'));
    const { result, charges } = await ledgerOf(project, () =>
      project.run(['build', '--yes', '--force', '--lock-out', 'ci/link.lock', '--json']),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(charges).toBe(0);
    expect(jsonError(result).message).toContain("--lock-out ci/link.lock is the project's own lock");
    expect(fs.readFileSync(file('assetgen.lock'), 'utf8')).toBe(lock);
    expect(lock).not.toContain('shardHistory');
  });
});
