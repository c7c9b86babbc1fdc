// Shards split the assets deterministically by a hash of the id; selectors pick ids and globs.
import { describe, expect, it } from 'vitest';
import { globToRegExp, inShard, parseShard, selectIds, shardOf } from '../../src/pipeline/shard.js';
import { PipelineError } from '../../src/pipeline/errors.js';
import { thrown } from './helpers.js';

describe('shards', () => {
  it('parses k/n with 1 ≤ k ≤ n', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, total: 4 });
    expect(parseShard(' 1/1 ')).toEqual({ index: 1, total: 1 });
    for (const bad of ['0/2', '3/2', '1/0', '1', 'a/b', '1/2/3', '-1/2'])
      expect(thrown(() => parseShard(bad))).toBeInstanceOf(PipelineError);
  });

  it('puts each id in exactly one shard, the same one every time, spread over all of them', () => {
    const ids = Array.from({ length: 400 }, (_, i) => `asset-${i}`);
    const counts = [0, 0, 0, 0];
    for (const id of ids) {
      const shard = shardOf(id, 4);
      expect(shardOf(id, 4)).toBe(shard);
      expect([1, 2, 3, 4].filter((index) => inShard(id, { index, total: 4 }))).toEqual([shard]);
      counts[shard - 1]! += 1;
    }
    for (const count of counts) expect(count).toBeGreaterThan(60);
    expect(shardOf('sword', 3)).toBe(shardOf('sword', 3));
    expect(inShard('anything', undefined)).toBe(true);
  });

  it('depends on the id alone, not on the other assets', () => {
    const before = ['a', 'b', 'c'].map((id) => shardOf(id, 5));
    expect(['a', 'b', 'c', 'zz', 'yy'].map((id) => shardOf(id, 5)).slice(0, 3)).toEqual(before);
  });
});

describe('selection', () => {
  it('matches ids exactly and globs with * and ?', () => {
    expect(globToRegExp('icon-*').test('icon-sword')).toBe(true);
    expect(globToRegExp('icon-*').test('xicon-sword')).toBe(false);
    expect(globToRegExp('a.b?').test('a.bc')).toBe(true);
    expect(globToRegExp('a.b?').test('axbc')).toBe(false);
    const ids = ['sword', 'shield', 'hero', 'torch'];
    expect(selectIds(ids, [])).toEqual({ selected: new Set(ids), unmatched: [] });
    expect(selectIds(ids, ['s*', 'torch', 'nope*'])).toEqual({ selected: new Set(['sword', 'shield', 'torch']), unmatched: ['nope*'] });
  });
});
