// Asset ids named like built-in object properties — `toString`, `constructor`, `valueOf`,
// `hasOwnProperty`: valid ids (src/pipeline/validate.ts ASSET_ID), so the lock's asset map must read
// only its own entries (Object.hasOwn), never a function every object inherits. The writer, the
// journal, a shard's history and `lock merge` each on their own; then the real CLI against the mock
// (forgetting idempotency keys at once, so no replay hides a second charge): built once, charged
// once each, rebuilt for free, sharded and merged for free. (The build reads the lock in modules
// beyond the lock's own too — plan.ts, sheet.ts, owners.ts …: its last test needs those reads made
// with Object.hasOwn as well.)
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { startShardLock, staleStarts, NO_ENTRY } from '../../src/pipeline/lock-history.js';
import { mergeLocks } from '../../src/pipeline/merge.js';
import type { Lock, LockEntry } from '../../src/pipeline/records.js';
import { LockWriter } from '../../src/pipeline/writer.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { disagreements, ledgerOf, lockVersusLedger } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { tempDir } from './helpers.js';

const IDS = ['toString', 'constructor', 'valueOf', 'hasOwnProperty'];
const SHA = 'a'.repeat(64);

const entry = (spec: string): LockEntry => ({ kind: 'image', spec, files: [{ path: `assets/${spec}.png`, sha256: SHA, size: 1 }] });

describe('the lock with built-in property names as ids', () => {
  it('the writer reads no inherited entry: submitted, finished, journalled, replayed and written as any id', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const writer = LockWriter.open(file);
    try {
      for (const id of IDS) expect(writer.entry(id)).toBeUndefined();
      for (const id of IDS) {
        await writer.submitted(id, { spec: `S-${id}`, kind: 'image', idempotencyKey: `key-${id}`, generation: 1 });
        await writer.charged(id, 10);
      }
      // Mid-build, every reader replays the journal.
      expect(Object.keys(readLock(file).assets).sort()).toEqual([...IDS].sort());
      for (const id of IDS) await writer.finished(id, { files: [{ path: `assets/${id}.png`, sha256: SHA, size: 1 }], credits: 10 });
      for (const id of IDS) expect(writer.entry(id)).toMatchObject({ spec: `S-${id}`, credits: 10, generation: 1 });
      await writer.failed('isPrototypeOf');
      await writer.forget('toLocaleString');
    } finally {
      await writer.close();
    }
    const lock = readLock(file);
    expect(Object.keys(lock.assets).sort()).toEqual([...IDS].sort());
    for (const id of IDS) expect(lock.assets[id]?.job).toBeUndefined();
  });

  it("a shard's history and lock merge take them as any id", () => {
    const project: Lock = { lockfileVersion: 1, assets: { valueOf: entry('v1') } };
    const shard: Lock = { lockfileVersion: 1, assets: {} };
    startShardLock(shard, project);
    expect(Object.keys(shard.shardHistory ?? {})).toEqual(['valueOf']);
    expect(staleStarts(shard, project)).toEqual([]);
    // Nothing recorded for toString: the start of an asset the project's lock did not have.
    expect(staleStarts(shard, { lockfileVersion: 1, assets: { ...project.assets, toString: entry('t0') } })).toEqual(['toString']);
    const id: string = 'toString';
    shard.assets[id] = entry('t1');
    shard.shardHistory![id] = [NO_ENTRY, 'b'.repeat(64)];
    const merged = mergeLocks(project, [{ file: 'shard.lock', lock: shard }]);
    expect(Object.keys(merged.assets).sort()).toEqual(['toString', 'valueOf']);
    expect(merged.assets[id]).toEqual(entry('t1'));
    // An id neither lock has is no entry of the merge.
    expect(Object.hasOwn(merged.assets, 'constructor')).toBe(false);
  });
});

const project = useMockProject({
  mock: { credits: 10_000 },
  config: { credits: 10_000, faults: { rate: 0 }, idempotency: { maxAgeMs: 1 } },
});

const MANIFEST = `defaults: { agent: icon-forge, out: assets/ }\nassets:\n${IDS.map((id) => `  - { id: ${id}, prompt: an icon named ${id} }\n`).join('')}`;

async function build(args: string[] = []): Promise<{ outcomes: Record<string, string>; charges: number }> {
  const { result, charges } = await ledgerOf(project, async (): Promise<CliResult> => project.run(['build', '--yes', '--json', ...args]));
  expect(result.code, result.stderr).toBe(0);
  const items = parseJson(result).items as { id: string; outcome: string }[];
  return { outcomes: Object.fromEntries(items.map((item) => [item.id, item.outcome])), charges };
}

describe('a build of assets with built-in property names as ids', () => {
  it('builds each once, charged once each; rebuilt, sharded and merged for free', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), MANIFEST);
    const dry = await project.run(['build', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect((parseJson(dry).items as { action: string }[]).map((item) => item.action)).toEqual(IDS.map(() => 'generate'));

    const first = await build();
    expect(first.outcomes).toEqual(Object.fromEntries(IDS.map((id) => [id, 'built'])));
    expect(first.charges).toBe(IDS.length);
    const ledger = await project.ledger();
    expect(disagreements(lockVersusLedger(project.cwd, ledger))).toEqual({});
    for (const id of IDS) expect(fs.existsSync(path.join(project.cwd, `assets/${id}.png`))).toBe(true);

    const again = await build();
    expect(again.outcomes).toEqual(Object.fromEntries(IDS.map((id) => [id, 'unchanged'])));
    expect(again.charges).toBe(0);

    for (const k of [1, 2]) expect((await build(['--shard', `${k}/2`, '--lock-out', `ci/s${k}.lock`])).charges).toBe(0);
    const lock = fs.readFileSync(path.join(project.cwd, 'assetgen.lock'), 'utf8');
    const merged = await project.run(['lock', 'merge', 'ci/s1.lock', 'ci/s2.lock']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(fs.readFileSync(path.join(project.cwd, 'assetgen.lock'), 'utf8')).toBe(lock);
    expect((await build(['--prune'])).charges).toBe(0);
    expect(Object.keys(readLock(path.join(project.cwd, 'assetgen.lock')).assets).sort()).toEqual([...IDS].sort());
  });
});
