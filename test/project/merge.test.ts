// Merging shard locks: per asset, the base unless one shard changed it; two changes conflict.
// The same locks in any order give the same bytes. A shard's lock with a history (what its
// --lock-out started from, and each state since) is compared with its own start: a stale copy is no
// change, and a change onto a project entry that moved on is an error, never a rollback.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockError } from '../../src/pipeline/errors.js';
import { parseLock, readLock, serializeLock } from '../../src/pipeline/lock.js';
import { entryDigest, NO_ENTRY, noteState, startShardLock } from '../../src/pipeline/lock-history.js';
import type { Lock, LockEntry } from '../../src/pipeline/records.js';
import { mergeLocks } from '../../src/pipeline/merge.js';
import { LockWriter } from '../../src/pipeline/writer.js';
import { tempDir, thrown } from './helpers.js';

const entry = (spec: string, sha = 'a'): LockEntry => ({
  kind: 'image',
  agent: 'x',
  spec,
  files: [{ path: `${spec}.png`, sha256: sha.repeat(64), size: 1 }],
});
const lock = (assets: Record<string, LockEntry>): Lock => ({ lockfileVersion: 1, assets });

describe('mergeLocks', () => {
  const base = lock({ sword: entry('s1'), hero: entry('h1'), torch: entry('t1') });
  // Two shards started from the base; each rebuilt its own assets and added a new one.
  const shard1 = { file: 'shard-1.lock', lock: lock({ ...base.assets, sword: entry('s2'), coin: entry('c1') }) };
  const shard2 = { file: 'shard-2.lock', lock: lock({ ...base.assets, hero: entry('h2') }) };

  it('takes each shard’s changes and keeps what no shard changed', () => {
    const merged = mergeLocks(base, [shard1, shard2]);
    expect(merged.assets).toEqual({ coin: entry('c1'), hero: entry('h2'), sword: entry('s2'), torch: entry('t1') });
  });

  it('gives the same bytes whatever the order of the locks', () => {
    const a = serializeLock(mergeLocks(base, [shard1, shard2]));
    expect(serializeLock(mergeLocks(base, [shard2, shard1]))).toBe(a);
    expect(serializeLock(mergeLocks(base, [shard2, shard1, shard1]))).toBe(a);
  });

  it('never drops an entry a shard does not list', () => {
    expect(mergeLocks(base, [{ file: 'partial.lock', lock: lock({ sword: entry('s2') }) }]).assets.torch).toEqual(entry('t1'));
  });

  it('treats equal results as one, whatever their key or file order', () => {
    const same = { ...entry('s2'), files: [...entry('s2').files] };
    const reordered = Object.fromEntries(Object.entries(same).reverse()) as unknown as LockEntry;
    expect(mergeLocks(base, [shard1, { file: 'again.lock', lock: lock({ sword: reordered }) }]).assets.sword).toEqual(entry('s2'));
  });

  it('reports two different changes to one asset as a conflict naming it and the locks', () => {
    const other = { file: 'shard-3.lock', lock: lock({ sword: entry('s3') }) };
    const error = thrown(() => mergeLocks(base, [shard1, shard2, other]));
    expect(error).toBeInstanceOf(LockError);
    expect(error.message).toBe('Conflict on asset "sword": the shard locks record different results (shard-1.lock vs shard-3.lock).');
  });

  it('without a base, every version of an asset must agree', () => {
    expect(mergeLocks(null, [shard1, { file: 'x.lock', lock: lock({ sword: entry('s2') }) }]).assets.sword).toEqual(entry('s2'));
    expect(thrown(() => mergeLocks(null, [shard1, shard2])).message.split('\n')).toEqual([
      'Conflict on asset "hero": the shard locks record different results (shard-1.lock vs shard-2.lock).',
      'Conflict on asset "sword": the shard locks record different results (shard-1.lock vs shard-2.lock).',
    ]);
  });
});

/** A shard's --lock-out lock as its writer leaves it: started from `start`, then each change in turn (null: gone). */
function shardLock(start: Lock, changes: [string, LockEntry | null][]): Lock {
  const shard: Lock = { lockfileVersion: 1, assets: {} };
  startShardLock(shard, start);
  for (const [id, change] of changes) {
    if (change) shard.assets[id] = change;
    else delete shard.assets[id];
    noteState(shard, id, change);
  }
  return shard;
}

const STALE = (id: string, files: string) =>
  `Stale shard lock on asset "${id}": ${files} changed it from an entry assetgen.lock no longer holds ` +
  `(the shard started from an older assetgen.lock, or the entry changed here after it started); taking it would roll "${id}" back.`;

describe('mergeLocks with shard histories', () => {
  const start = lock({ sword: entry('s1'), hero: entry('h1'), torch: entry('t1') });
  const shard1 = {
    file: 'shard-1.lock',
    lock: shardLock(start, [
      ['sword', entry('s2')],
      ['coin', entry('c1')],
    ]),
  };
  const shard2 = { file: 'shard-2.lock', lock: shardLock(start, [['hero', entry('h2')]]) };

  it('records the start and each state, once; the project’s lock has none', () => {
    expect(shard1.lock.shardHistory).toEqual({
      sword: [entryDigest(entry('s1')), entryDigest(entry('s2'))],
      hero: [entryDigest(entry('h1'))],
      torch: [entryDigest(entry('t1'))],
      coin: [NO_ENTRY, entryDigest(entry('c1'))],
    });
    expect(mergeLocks(start, [shard1, shard2]).shardHistory).toBeUndefined();
  });

  it('takes each shard’s changes from its start, as without a history', () => {
    expect(mergeLocks(start, [shard1, shard2]).assets).toEqual({
      coin: entry('c1'),
      hero: entry('h2'),
      sword: entry('s2'),
      torch: entry('t1'),
    });
  });

  it('a copy the shard left as it found it is no change: a project entry that moved on stays', () => {
    // After the merge, a build changed torch and hero: both shards still hold their start's torch.
    const later = lock({ ...mergeLocks(start, [shard1, shard2]).assets, torch: entry('t2') });
    expect(mergeLocks(later, [shard1]).assets.torch).toEqual(entry('t2'));
    expect(serializeLock(mergeLocks(later, [shard2, shard1]))).toBe(serializeLock(later));
  });

  it('merging the same shards twice, in any order, changes nothing', () => {
    const once = mergeLocks(start, [shard1, shard2]);
    expect(serializeLock(mergeLocks(once, [shard2, shard1, shard2]))).toBe(serializeLock(once));
  });

  it('a shard’s change onto a project entry that moved on since its start is stale: an error naming the asset and the lock', () => {
    const later = lock({ ...mergeLocks(start, [shard1, shard2]).assets, sword: entry('s9') });
    const error = thrown(() => mergeLocks(later, [shard2, shard1]));
    expect(error).toBeInstanceOf(LockError);
    expect(error.message).toBe(STALE('sword', 'shard-1.lock'));
    expect((error as LockError).hint).toMatch(/^A shard lock merged before is stale .*leave it out/);
    // An asset the shard made from nothing, which the project made meanwhile: stale too.
    const both = lock({ ...start.assets, coin: entry('c9') });
    expect(thrown(() => mergeLocks(both, [shard1])).message).toBe(STALE('coin', 'shard-1.lock'));
  });

  it('a project entry that is a state of the shard’s own history (a merge of it mid-build) takes the shard’s later change', () => {
    const job = { ...entry('h1'), job: { spec: 'h2', kind: 'image' as const, idempotencyKey: 'k', submittedAt: 'now' } };
    const midway = shardLock(start, [['hero', job]]);
    const merged = mergeLocks(start, [{ file: 'shard-2.lock', lock: midway }]);
    expect(merged.assets.hero).toEqual(job);
    const finished = shardLock(start, [
      ['hero', job],
      ['hero', entry('h2')],
    ]);
    expect(mergeLocks(merged, [{ file: 'shard-2.lock', lock: finished }]).assets.hero).toEqual(entry('h2'));
    // The other way round (the earlier copy after the later one) would roll back: stale.
    const later = mergeLocks(merged, [{ file: 'shard-2.lock', lock: finished }]);
    expect(thrown(() => mergeLocks(later, [{ file: 'old.lock', lock: midway }])).message).toBe(STALE('hero', 'old.lock'));
  });

  it('a shard that dropped an entry changes nothing: merging never drops one', () => {
    const pruned = { file: 'shard-3.lock', lock: shardLock(start, [['torch', null]]) };
    expect(mergeLocks(start, [pruned]).assets.torch).toEqual(entry('t1'));
  });

  it('a lock without a history (an older assetgen’s) merges as before: every entry that differs is its change', () => {
    const legacy = { file: 'old.lock', lock: { ...shard2.lock, shardHistory: undefined } };
    const later = lock({ ...start.assets, torch: entry('t2') });
    // Its copy of torch differs from the project's: taken, as it always was (docs/build.md says so).
    expect(mergeLocks(later, [legacy]).assets).toEqual({ ...start.assets, hero: entry('h2') });
    // Beside a shard with a history: that one's stale change is the error; without it, the two conflict.
    const other = { file: 'shard-4.lock', lock: lock({ sword: entry('s3') }) };
    const moved = lock({ ...start.assets, sword: entry('s9') });
    const error = thrown(() => mergeLocks(moved, [shard1, other]));
    expect(error.message.split('\n')).toEqual([STALE('sword', 'shard-1.lock')]);
    expect(thrown(() => mergeLocks(start, [shard1, other])).message).toBe(
      'Conflict on asset "sword": the shard locks record different results (shard-1.lock vs shard-4.lock).',
    );
  });
});

describe('shardHistory in the lock file', () => {
  it('is written after lockfileVersion, keys sorted, and read back the same', () => {
    const shard = shardLock(lock({ b: entry('b1') }), [['a', entry('a1')]]);
    const text = serializeLock(shard);
    expect(text.indexOf('"shardHistory"')).toBeGreaterThan(text.indexOf('"lockfileVersion"'));
    expect(Object.keys(JSON.parse(text).shardHistory)).toEqual(['a', 'b']);
    expect(parseLock(text, 'shard.lock')).toEqual(JSON.parse(text));
    expect(serializeLock(parseLock(text, 'shard.lock'))).toBe(text);
    const empty = shardLock(lock({}), []);
    expect(serializeLock(parseLock(serializeLock(empty), 'x'))).toBe(
      '{\n  "assets": {},\n  "lockfileVersion": 1,\n  "shardHistory": {}\n}\n',
    );
  });

  it('a history that is not lists of sha256 digests is refused, naming the field', () => {
    const bad = (shardHistory: unknown) =>
      thrown(() => parseLock(JSON.stringify({ lockfileVersion: 1, assets: {}, shardHistory }), 'shard.lock'));
    expect(bad([])).toBeInstanceOf(LockError);
    expect(bad([]).message).toBe('shard.lock: shardHistory: must map asset ids to lists of sha256 digests');
    expect(bad({ sword: [] }).message).toMatch(/^shard\.lock: shardHistory\.sword: must be a list of sha256 digests/);
    expect(bad({ sword: ['abc'] }).message).toMatch(/^shard\.lock: shardHistory\.sword: must be a list/);
    expect(bad({ sword: [NO_ENTRY, NO_ENTRY] }).message).toBe('shard.lock: shardHistory.sword: lists a digest twice');
  });

  it('a shard writer’s history is what a replay of its journal gives (a kill -9), and what it writes', async () => {
    const root = tempDir();
    const file = path.join(root, 'shard-1.lock');
    const writer = LockWriter.open(file);
    try {
      await writer.seed(lock({ sword: entry('s1'), hero: entry('h1') }));
      await writer.submitted('coin', { spec: 'c1', kind: 'image', idempotencyKey: 'k1' });
      await writer.submitted('sword', { spec: 's2', kind: 'image', idempotencyKey: 'k2' });
      await writer.forget('hero');
      // Nothing written whole yet: a reader replays the journal alone.
      expect(fs.existsSync(file)).toBe(false);
      const replayed = readLock(file);
      expect(replayed).toEqual(JSON.parse(JSON.stringify(writer.lock)));
      expect(replayed.shardHistory?.coin).toEqual([NO_ENTRY, entryDigest(replayed.assets.coin)]);
      expect(replayed.shardHistory?.hero).toEqual([entryDigest(entry('h1')), NO_ENTRY]);
    } finally {
      await writer.close();
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(writer.lock));
    // Opened again (a rerun of the shard: not a new lock-out, no new start): the history goes on.
    const again = LockWriter.open(file);
    try {
      await again.submitted('coin', { spec: 'c1', kind: 'image', idempotencyKey: 'k1', jobId: 'j' });
      expect(again.lock.shardHistory?.coin).toHaveLength(3);
      expect(readLock(file).shardHistory).toEqual(again.lock.shardHistory);
    } finally {
      await again.close();
    }
  });

  it('a project lock merged over has no history afterwards', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    fs.writeFileSync(file, serializeLock(shardLock(lock({ sword: entry('s1') }), [])));
    const writer = LockWriter.open(file);
    await writer.replace(mergeLocks(readLock(file), []));
    await writer.close();
    expect(readLock(file)).toEqual(lock({ sword: entry('s1') }));
  });
});
