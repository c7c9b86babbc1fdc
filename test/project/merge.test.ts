// Merging shard locks: per asset, the base unless one shard changed it; two changes conflict.
// The same locks in any order give the same bytes.
import { describe, expect, it } from 'vitest';
import { LockError } from '../../src/pipeline/errors.js';
import { serializeLock } from '../../src/pipeline/lock.js';
import type { Lock, LockEntry } from '../../src/pipeline/records.js';
import { mergeLocks } from '../../src/pipeline/merge.js';
import { thrown } from './helpers.js';

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
