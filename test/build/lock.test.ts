// The lockfile: stable bytes, strict reading (paths inside the project only), atomic writes, and
// one writer that applies concurrent updates in order, so a crash leaves a lock to plan from.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockError } from '../../src/build/errors.js';
import { describeFiles } from '../../src/build/hash.js';
import { emptyLock, lockFileFor, LockWriter, parseLock, readLock, serializeLock, type Lock } from '../../src/build/lock.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { tempDir, thrown, writeFiles } from './helpers.js';

const SHA = 'a'.repeat(64);
const sample = (): Lock => ({
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
      'assetgen.lock: assets.a.kind: must be image, workflow or video',
    );
    for (const escape of ['../outside.png', '/etc/passwd', 'a/../../b.png', 'C:/x.png', 'a\\b.png', ''])
      expect(bad({ lockfileVersion: 1, assets: { a: { kind: 'image', files: [{ path: escape, sha256: SHA, size: 1 }] } } })).toContain(
        'is not a path inside the project',
      );
    expect(bad({ lockfileVersion: 1, assets: { a: { kind: 'image', files: [], job: { spec: 's' } } } })).toContain('assets.a.job');
    const error = thrown(() => parseLock('{"lockfileVersion": 1,\n<<<<<<< HEAD\n', 'assetgen.lock')) as LockError;
    expect(error).toBeInstanceOf(LockError);
    expect(exitCodeFor(error)).toBe(EXIT.usage);
    expect(error.hint).toContain('merge-conflict markers');
  });
});

describe('LockWriter', () => {
  it('records submitted → finished, writing atomically with nothing left behind', async () => {
    const root = tempDir();
    writeFiles(root, { 'fx/torch.gif': 'GIF89a' });
    const file = path.join(root, 'assetgen.lock');
    const writer = LockWriter.open(file);
    await writer.submitted('torch', { spec: 'S', kind: 'video', idempotencyKey: 'key-1' });
    expect(readLock(file).assets.torch!.job).toMatchObject({ spec: 'S', idempotencyKey: 'key-1' });
    await writer.submitted('torch', { spec: 'S', kind: 'video', idempotencyKey: 'key-1', jobId: 'vid_1' });
    expect(readLock(file).assets.torch!.job!.jobId).toBe('vid_1');
    const files = await describeFiles(root, [path.join(root, 'fx/torch.gif')]);
    expect(files).toEqual([{ path: 'fx/torch.gif', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size: 6 }]);
    await writer.finished('torch', { files, credits: 180, finishedAt: new Date('2026-03-04T05:06:07Z') });
    expect(readLock(file).assets.torch).toEqual({ kind: 'video', spec: 'S', files, credits: 180, finishedAt: '2026-03-04T05:06:07.000Z' });
    expect(fs.readdirSync(root).sort()).toEqual(['assetgen.lock', 'fx']);
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(writer.lock));
  });

  it('applies concurrent updates in the order they were made', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const writer = LockWriter.open(file);
    const ids = Array.from({ length: 30 }, (_, i) => `a${i}`);
    await Promise.all(
      ids.flatMap((id) => [
        writer.submitted(id, { spec: id, kind: 'image', agent: 'x', idempotencyKey: `k-${id}` }),
        writer.finished(id, { files: [], credits: 1 }),
      ]),
    );
    const lock = readLock(file);
    expect(Object.keys(lock.assets).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(lock.assets[id]).toMatchObject({ spec: id, credits: 1 });
    expect(Object.values(lock.assets).some((entry) => entry.job)).toBe(false);
  });

  it('keeps earlier files while a rebuild is in flight (even of another kind); failed drops the job, forget the entry', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    fs.writeFileSync(file, serializeLock(sample()));
    const writer = LockWriter.open(file);
    await writer.submitted('torch', { spec: 'S3', kind: 'video', idempotencyKey: 'k' });
    expect(readLock(file).assets.torch).toMatchObject({ spec: 's2', files: [{ path: 'fx/torch.gif' }], job: { spec: 'S3' } });
    await writer.failed('torch');
    expect(readLock(file).assets.torch).toEqual(sample().assets.torch);
    // Turning the asset into an image: the video's record stands until the image is finished.
    await writer.submitted('torch', { spec: 'S4', kind: 'image', agent: 'icon-forge', idempotencyKey: 'k2' });
    const submittedAt = readLock(file).assets.torch!.job!.submittedAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await writer.submitted('torch', { spec: 'S4', kind: 'image', agent: 'icon-forge', idempotencyKey: 'k2', jobId: 'gen_1' });
    expect(readLock(file).assets.torch).toMatchObject({
      kind: 'video',
      spec: 's2',
      credits: 180,
      job: { kind: 'image', agent: 'icon-forge', jobId: 'gen_1', submittedAt },
    });
    await writer.finished('torch', { files: [], credits: 2 });
    expect(readLock(file).assets.torch).toMatchObject({ kind: 'image', agent: 'icon-forge', spec: 'S4', files: [], credits: 2 });
    expect(readLock(file).assets.torch!.job).toBeUndefined();
    await writer.submitted('fresh', { spec: 'F', kind: 'image', agent: 'x', idempotencyKey: 'k' });
    await writer.failed('fresh');
    expect(readLock(file).assets.fresh).toBeUndefined();
    await writer.forget('hero');
    expect(Object.keys(readLock(file).assets)).toEqual(['torch']);
  });

  it('refuses to finish what was never submitted, and later updates still land', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const writer = LockWriter.open(file);
    await expect(writer.finished('ghost', { files: [], credits: 0 })).rejects.toThrow('no job was submitted');
    await writer.submitted('real', { spec: 'R', kind: 'image', agent: 'x', idempotencyKey: 'k' });
    await writer.flush();
    expect(Object.keys(readLock(file).assets)).toEqual(['real']);
  });
});
