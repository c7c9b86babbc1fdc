// The lockfile: stable bytes, and strict reading (paths inside the project only).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockError } from '../../src/pipeline/errors.js';
import { emptyLock, lockFileFor, parseLock, readLock, serializeLock, writeLockAtomic } from '../../src/pipeline/lock.js';
import type { Lock } from '../../src/pipeline/records.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { hashFile, stableStringify } from '../../src/pipeline/hash.js';
import { SHA, sampleLock as sample, tempDir, thrown, writeFiles } from './helpers.js';

describe('serializeLock', () => {
  it('sorts keys and files, so equal locks are equal bytes', () => {
    const text = serializeLock(sample());
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys((JSON.parse(text) as Lock).assets)).toEqual(['hero', 'torch']);
    expect(text.indexOf('hero-idle')).toBeLessThan(text.indexOf('hero-walk'));
    expect(text.indexOf('"files"')).toBeLessThan(text.indexOf('"kind"'));
    const reverse = (value: unknown): unknown =>
      Array.isArray(value)
        ? [...value].reverse().map(reverse)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reverse(v)]),
            )
          : value;
    const reordered = JSON.stringify(reverse(sample()));
    expect(reordered).not.toBe(JSON.stringify(sample()));
    expect(serializeLock(parseLock(reordered, 'x'))).toBe(text);
  });

  it('writes entry by entry exactly what stable JSON of the whole lock is', () => {
    const whole = (lock: Lock): string => {
      const assets = Object.fromEntries(
        Object.entries(lock.assets).map(([id, entry]) => [
          id,
          { ...entry, files: [...entry.files].sort((a, b) => a.path.localeCompare(b.path)) },
        ]),
      );
      return `${stableStringify({ ...lock, assets }, 2)}\n`;
    };
    const odd = sample();
    odd.assets['quote"and\\back'] = { ...odd.assets.hero!, agent: 'line\nbreak é 🗡' };
    for (const lock of [emptyLock(), sample(), odd]) expect(serializeLock(lock)).toBe(whole(lock));
  });

  it('writes a large lock in pieces (never one string): the file holds exactly serializeLock, non-ASCII included', async () => {
    const lock = sample();
    // ~3,000 entries (~2 MB): several of the atomic writer's 256 KiB batches, a few written twice over.
    for (let i = 0; i < 3000; i++) lock.assets[`icon-${i}`] = { ...lock.assets.hero!, agent: i % 7 ? `agent-${i}` : `é 🗡 ${i}` };
    const file = path.join(tempDir(), 'assetgen.lock');
    await writeLockAtomic(file, lock);
    expect(fs.statSync(file).size).toBeGreaterThan(1024 * 1024);
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(lock));
    expect(fs.readdirSync(path.dirname(file))).toEqual(['assetgen.lock']);
  });
});

describe('reading a lock', () => {
  it('a missing lock is empty; a present one round-trips', () => {
    const root = tempDir();
    const file = lockFileFor(path.join(root, 'assetgen.yaml'));
    expect(file).toBe(path.join(root, 'assetgen.lock'));
    expect(readLock(file)).toEqual(emptyLock());
    fs.writeFileSync(file, serializeLock(sample()));
    expect(readLock(file)).toEqual(JSON.parse(serializeLock(sample())));
  });

  it('refuses what it cannot trust, as a usage error naming the place', () => {
    const bad = (value: unknown): string => thrown(() => parseLock(JSON.stringify(value), 'assetgen.lock')).message;
    expect(bad({ lockfileVersion: 2, assets: {} })).toContain('lockfileVersion: is 2');
    expect(bad({ lockfileVersion: 1, assets: { a: { kind: 'sound', files: [] } } })).toBe(
      'assetgen.lock: assets.a.kind: must be image, workflow, video or sheet',
    );
    for (const outside of ['../outside.png', '/etc/passwd', 'a/../../b.png', 'C:/x.png', 'a\\b.png', ''])
      expect(bad({ lockfileVersion: 1, assets: { a: { kind: 'image', files: [{ path: outside, sha256: SHA, size: 1 }] } } })).toContain(
        'is not a path inside the project',
      );
    expect(bad({ lockfileVersion: 1, assets: { a: { kind: 'image', files: [], job: { spec: 's' } } } })).toContain('assets.a.job');
    const error = thrown(() => parseLock('{"lockfileVersion": 1,\n<<<<<<< HEAD\n', 'assetgen.lock')) as LockError;
    expect(error).toBeInstanceOf(LockError);
    expect(exitCodeFor(error)).toBe(EXIT.usage);
    expect(error.hint).toContain('merge-conflict markers');
  });

  it("checks an entry's takes: candidates, picked, prunedTakes and job.take", () => {
    const take = (k: unknown, file = `.assetgen/candidates/a/${String(k)}.png`) => ({ k, file, sha256: SHA, size: 1, credits: 10 });
    const lockWith = (fields: object) => JSON.stringify({ lockfileVersion: 1, assets: { a: { kind: 'image', files: [], ...fields } } });
    const bad = (fields: object): string => thrown(() => parseLock(lockWith(fields), 'assetgen.lock')).message;
    expect(parseLock(lockWith({ candidates: [take(1), take(2)], picked: 2 }), 'x').assets.a!.picked).toBe(2);
    expect(bad({ candidates: {} })).toBe('assetgen.lock: assets.a.candidates: must be a list of takes');
    expect(bad({ candidates: [take(0)] })).toContain('assets.a.candidates: each take needs k (a whole number from 1)');
    expect(bad({ candidates: [{ ...take(1), credits: '10' }] })).toContain('credits (a number or null)');
    expect(bad({ candidates: [take(1, '../x.png')] })).toBe(
      'assetgen.lock: assets.a.candidates: ../x.png is not a path inside the project',
    );
    expect(bad({ candidates: [take(1), take(1)] })).toBe('assetgen.lock: assets.a.candidates: take 1 is listed twice');
    expect(bad({ candidates: [take(1)], picked: 3 })).toBe('assetgen.lock: assets.a.picked: names take 3, which candidates does not list');
    expect(bad({ picked: 1.5 })).toBe('assetgen.lock: assets.a.picked: must be a whole number from 1 (a take of the asset)');
    const job = { spec: 's', kind: 'image', idempotencyKey: 'k', submittedAt: 'now' };
    expect(bad({ job: { ...job, take: 0 } })).toBe('assetgen.lock: assets.a.job.take: must be a whole number from 1 (a take of the asset)');
    expect(parseLock(lockWith({ job: { ...job, take: 2 } }), 'x').assets.a!.job!.take).toBe(2);
    const pruned = [{ k: 1, credits: 10 }];
    expect(parseLock(lockWith({ candidates: [take(2)], picked: 2, prunedTakes: pruned }), 'x').assets.a!.prunedTakes).toEqual(pruned);
    expect(bad({ prunedTakes: [{ k: 0, credits: 1 }] })).toBe(
      'assetgen.lock: assets.a.prunedTakes: must be a list of {k, credits} (the takes --prune-takes deleted)',
    );
  });
});

describe('hashFile', () => {
  it('hashes small files whole and large ones streamed, the same way; a folder or a missing file is null', async () => {
    const dir = tempDir();
    const small = Buffer.from('tiny asset');
    const large = Buffer.alloc((1 << 20) + 3, 7);
    writeFiles(dir, { 'small.png': small, 'large.mp4': large, 'folder/inside.png': small });
    const expected = (data: Buffer) => ({ sha256: createHash('sha256').update(data).digest('hex'), size: data.length });
    expect(await hashFile(path.join(dir, 'small.png'))).toEqual(expected(small));
    expect(await hashFile(path.join(dir, 'large.mp4'))).toEqual(expected(large));
    expect(await hashFile(path.join(dir, 'folder'))).toBeNull();
    expect(await hashFile(path.join(dir, 'missing.png'))).toBeNull();
  });
});
