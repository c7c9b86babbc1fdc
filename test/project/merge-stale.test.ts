// `assetgen lock merge` with shard locks that are older than the project's lock (docs/build.md,
// `lock merge`): the same shard files merged again after a later build changed an asset, or a shard
// lock whose start the project has moved on from. A shard's copy of an asset it left as it found it
// is no change (never a rollback); its own change onto an entry that moved on is a stale error, exit
// 2, nothing written; the next build pays for nothing. And a shard merged mid-build (a paid job in
// flight), then finished by its rerun, merges again: its later state is its own change.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { disagreements, ledgerOf, lockVersusLedger } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({
  mock: { credits: 10_000 },
  config: { credits: 10_000, faults: { rate: 0 }, videoSteps: 2, videoPollAfterMs: 0 },
});

const IDS = ['sword', 'shield', 'gem', 'coin'];
const PROMPTS: Record<string, string> = { sword: 'a rusty sword', shield: 'a wooden shield', gem: 'a blue gem', coin: 'a gold coin' };
const manifest = (prompts: Record<string, string> = {}): string =>
  `defaults: { agent: icon-forge, out: assets/icons/ }\nassets:\n${IDS.map((id) => `  - { id: ${id}, prompt: ${prompts[id] ?? PROMPTS[id]} }\n`).join('')}`;
const writeManifest = (prompts: Record<string, string> = {}): void =>
  fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), manifest(prompts));

const GEM_SHARD = shardOf('gem', 2);
const OTHER_SHARD = 3 - GEM_SHARD;
const shardFile = (k: number): string => `ci/shard-${k}.lock`;
const lockText = (): string => fs.readFileSync(path.join(project.cwd, 'assetgen.lock'), 'utf8');

async function ok(args: string[]): Promise<CliResult> {
  const result = await project.run(args);
  expect(result.code, `assetgen ${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result;
}

/** Both shards of a 2-way build, each writing its own lock under ci/. */
async function buildShards(): Promise<void> {
  for (const k of [1, 2]) await ok(['build', '--yes', '-q', '--shard', `${k}/2`, '--lock-out', shardFile(k)]);
}

const merge = (files: string[], extra: string[] = []): Promise<CliResult> => project.run(['lock', 'merge', ...files, ...extra]);

/** A build after the merge: every asset unchanged, and no charge. */
async function expectNothingToPay(): Promise<void> {
  const { result, charges } = await ledgerOf(project, () => ok(['build', '--yes', '--json']));
  const outcomes = (parseJson(result).items as { id: string; outcome: string }[]).map((item) => [item.id, item.outcome]);
  expect(Object.fromEntries(outcomes)).toEqual(Object.fromEntries(IDS.map((id) => [id, 'unchanged'])));
  expect(charges).toBe(0);
}

describe('lock merge with stale shard locks', () => {
  it("a shard's copy of an asset it did not build never rolls back the project's newer entry", async () => {
    writeManifest();
    await ok(['build', '--yes', '-q']);
    // Both shards start from this lock; neither has anything to build.
    await buildShards();
    // Then a build here changes gem (a new prompt: paid once).
    writeManifest({ gem: 'a red gem' });
    const { charges } = await ledgerOf(project, () => ok(['build', '--yes', '-q']));
    expect(charges).toBe(1);
    const newer = lockText();
    const gem = readLock(path.join(project.cwd, 'assetgen.lock')).assets.gem!;
    expect(gem.generation).toBe(2);

    // Both shard locks hold gem as it was when they started: no change of theirs, nothing to write.
    const merged = await merge([shardFile(1), shardFile(2)]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('Unchanged: assetgen.lock (4 assets from 2 locks).');
    expect(lockText()).toBe(newer);
    await expectNothingToPay();
    expect(disagreements(lockVersusLedger(project.cwd, await project.ledger()))).toEqual({});
  });

  it('the same shard locks merged again after a later build changed one of their assets: exit 2 naming it and the lock, nothing written', async () => {
    writeManifest();
    const { charges: built } = await ledgerOf(project, () => buildShards());
    expect(built).toBe(IDS.length);
    await ok(['lock', 'merge', shardFile(1), shardFile(2)]);
    const first = lockText();
    // Merging them again, in the other order, changes nothing.
    expect((await ok(['lock', 'merge', shardFile(2), shardFile(1)])).stderr).toContain('Unchanged: assetgen.lock');
    expect(lockText()).toBe(first);
    expect(readLock(path.join(project.cwd, 'assetgen.lock')).shardHistory).toBeUndefined();

    writeManifest({ gem: 'a red gem' });
    await ok(['build', '--yes', '-q']);
    const newer = lockText();
    expect(newer).not.toBe(first);

    const again = await merge([shardFile(1), shardFile(2)], ['--json']);
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    const error = jsonError(again);
    expect(error.message).toBe(
      `Stale shard lock on asset "gem": ${shardFile(GEM_SHARD)} changed it from an entry assetgen.lock no longer holds ` +
        `(the shard started from an older assetgen.lock, or the entry changed here after it started); taking it would roll "gem" back.`,
    );
    expect(error.hint).toContain('A shard lock merged before is stale once a later build changes its assets: leave it out');
    expect(lockText()).toBe(newer);
    expect(fs.readdirSync(project.cwd).filter((name) => name.startsWith('.assetgen.lock'))).toEqual([]);
    // What the error says to do: leave it out. The other shard's lock alone changes nothing.
    const without = await ok(['lock', 'merge', shardFile(OTHER_SHARD)]);
    expect(without.stderr).toContain('Unchanged: assetgen.lock');
    expect(lockText()).toBe(newer);
    await expectNothingToPay();
    expect(disagreements(lockVersusLedger(project.cwd, await project.ledger()))).toEqual({});
  });

  it("a shard lock whose history is not a list of digests is refused by the lock's own check: exit 2, nothing written", async () => {
    writeManifest();
    await buildShards();
    const file = path.join(project.cwd, shardFile(1));
    const shard = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...shard, shardHistory: { sword: ['not a digest'] } }));
    const result = await merge([shardFile(1), shardFile(2)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: shardHistory.sword: must be a list of sha256 digests`);
    expect(fs.existsSync(path.join(project.cwd, 'assetgen.lock'))).toBe(false);
  });

  it('a shard lock without a history (an older assetgen’s) merges as before', async () => {
    writeManifest();
    await buildShards();
    for (const k of [1, 2]) {
      const file = path.join(project.cwd, shardFile(k));
      const { shardHistory, ...legacy } = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      expect(Object.keys(shardHistory as object).length).toBeGreaterThan(0);
      fs.writeFileSync(file, JSON.stringify(legacy));
    }
    await ok(['lock', 'merge', shardFile(1), shardFile(2)]);
    expect(Object.keys(readLock(path.join(project.cwd, 'assetgen.lock')).assets).sort()).toEqual([...IDS].sort());
    await expectNothingToPay();
  });
});

describe('lock merge of a shard merged mid-build, then finished', () => {
  it('takes its finish: the project holds a state of the shard’s own history', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), 'assets:\n  - { id: lava, video: lava flowing, out: fx/ }\n');
    const args = ['build', '--yes', '-q', '--shard', '1/1', '--lock-out', 'shard-1.lock'];
    // Ctrl-C while the build waits for its next poll of the paid video job (the service asked for a minute).
    await project.mock.config({ videoPollAfterMs: 60_000 });
    const interrupt = new AbortController();
    const running = project.run(args, { interrupt: interrupt.signal });
    await until('the job id in the shard’s journal', () => readLock(path.join(project.cwd, 'shard-1.lock')).assets.lava?.job?.jobId);
    interrupt.abort();
    expect((await running).code).toBe(130);
    await project.mock.config({ videoPollAfterMs: 0 });
    // The shard's lock keeps the paid job; merged now, the project's lock knows it too.
    await ok(['lock', 'merge', 'shard-1.lock']);
    const job = readLock(path.join(project.cwd, 'assetgen.lock')).assets.lava!.job;
    expect(job?.jobId).toMatch(/^vid_/);

    await ok(args);
    const merged = await merge(['shard-1.lock']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('Wrote assetgen.lock');
    const lava = readLock(path.join(project.cwd, 'assetgen.lock')).assets.lava!;
    expect(lava.job).toBeUndefined();
    expect(lava.jobId).toBe(job!.jobId);
    expect(lava.files).toHaveLength(1);
    expect((await project.ledger()).filter((entry) => entry.amount === -180)).toHaveLength(1);
    expect((await ok(['lock', 'merge', 'shard-1.lock'])).stderr).toContain('Unchanged: assetgen.lock');
    const { result, charges } = await ledgerOf(project, () => ok(['build', '--yes', '--json']));
    expect((parseJson(result).items as { outcome: string }[]).map((item) => item.outcome)).toEqual(['unchanged']);
    expect(charges).toBe(0);
  });
});
