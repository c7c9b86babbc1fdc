// The one writer of assetgen.lock: updates applied in order and written atomically, so a crash
// leaves a lock to plan from; and a claim that keeps a second process from writing at once.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LockError } from '../../src/pipeline/errors.js';
import { describeFiles } from '../../src/pipeline/hash.js';
import { readLock, serializeLock } from '../../src/pipeline/lock.js';
import { claimFileFor } from '../../src/pipeline/lock-claim.js';
import { LockWriter } from '../../src/pipeline/writer.js';
import { SHA, sampleLock as sample, tempDir, thrown, writeFiles } from './helpers.js';

const open: LockWriter[] = [];
/** Opens a writer closed after the test. */
function writerFor(file: string): LockWriter {
  const writer = LockWriter.open(file);
  open.push(writer);
  return writer;
}
afterEach(async () => {
  for (const writer of open.splice(0)) await writer.close();
});

describe('LockWriter', () => {
  it('records submitted → finished, writing atomically with nothing left behind', async () => {
    const root = tempDir();
    writeFiles(root, { 'fx/torch.gif': 'GIF89a' });
    const file = path.join(root, 'assetgen.lock');
    const writer = writerFor(file);
    await writer.submitted('torch', { spec: 'S', kind: 'video', idempotencyKey: 'key-1' });
    expect(readLock(file).assets.torch!.job).toMatchObject({ spec: 'S', idempotencyKey: 'key-1' });
    await writer.submitted('torch', { spec: 'S', kind: 'video', idempotencyKey: 'key-1', jobId: 'vid_1' });
    expect(readLock(file).assets.torch!.job!.jobId).toBe('vid_1');
    const files = await describeFiles(root, [path.join(root, 'fx/torch.gif')]);
    expect(files).toEqual([{ path: 'fx/torch.gif', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size: 6 }]);
    await writer.finished('torch', { files, credits: 180, finishedAt: new Date('2026-03-04T05:06:07Z') });
    // The finish keeps the job's id (provenance: the run or video job that made the files).
    expect(readLock(file).assets.torch).toEqual({
      kind: 'video',
      spec: 'S',
      files,
      credits: 180,
      finishedAt: '2026-03-04T05:06:07.000Z',
      jobId: 'vid_1',
    });
    // While the build runs, the changes are in the journal (every reader replays it); close() writes
    // the whole lock and leaves nothing else behind.
    expect(fs.readdirSync(root).sort()).toEqual(['.assetgen.lock.journal', '.assetgen.lock.writer', 'fx']);
    await writer.close();
    expect(fs.readdirSync(root).sort()).toEqual(['assetgen.lock', 'fx']);
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(writer.lock));
  });

  it("entry(id) is a copy of that asset's entry as the updates leave it; changing the copy changes nothing", async () => {
    const root = tempDir();
    const writer = writerFor(path.join(root, 'assetgen.lock'));
    expect(writer.entry('torch')).toBeUndefined();
    await writer.submitted('torch', { spec: 'S', kind: 'video', idempotencyKey: 'key-1' });
    const entry = writer.entry('torch')!;
    expect(entry).toEqual(writer.lock.assets.torch);
    entry.job!.idempotencyKey = 'changed';
    expect(writer.entry('torch')!.job!.idempotencyKey).toBe('key-1');
  });

  it('holds updates that arrive while it writes the whole lock: the file is the lock as the write began, the updates are journalled after', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const writer = writerFor(file);
    const lock = sample();
    // ~3,000 entries: the write takes several batches, and reads each entry only as it writes it.
    for (let i = 0; i < 3000; i++) lock.assets[`icon-${i}`] = { ...lock.assets.hero!, agent: `agent-${i}` };
    await writer.replace(lock);
    await writer.submitted('hero', { spec: 's1', kind: 'workflow', idempotencyKey: 'key-1', credits: 10 });
    const asClosed = serializeLock(writer.lock);
    // The moment close() opens the lock's temp file, the whole-lock write has begun: updates now.
    const opening = fs.promises.open;
    let during: Promise<void>[] = [];
    const spy = vi.spyOn(fs.promises, 'open').mockImplementation(async (...args: Parameters<typeof opening>) => {
      if (String(args[0]).startsWith(path.join(root, '.assetgen.lock.')) && !during.length)
        during = [writer.charged('hero', 99), writer.forget('icon-1'), writer.forget('icon-2999')];
      return opening(...args);
    });
    try {
      await writer.close();
    } finally {
      spy.mockRestore();
    }
    expect(during).toHaveLength(3);
    await Promise.all(during);
    expect(fs.readFileSync(file, 'utf8')).toBe(asClosed);
    // The updates are not lost: journalled after the write, replayed by every reader.
    const read = readLock(file);
    expect(read.assets.hero!.job!.credits).toBe(99);
    expect(read.assets['icon-1']).toBeUndefined();
    expect(read.assets['icon-2999']).toBeUndefined();
    expect(Object.keys(read.assets)).toHaveLength(3000);
  });

  it('a build that died leaves its journal: readers replay it, the next writer folds it into the lock, a torn last line is dropped', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    fs.writeFileSync(file, serializeLock(sample()));
    // A child process appends two records through the writer, then dies without closing it.
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import { LockWriter } from ${JSON.stringify(new URL('../../src/pipeline/writer.ts', import.meta.url).pathname)};
         const w = LockWriter.open(${JSON.stringify(file)});
         await w.submitted('torch', { spec: 'S9', kind: 'video', idempotencyKey: 'k9', jobId: 'vid_9', credits: 180 });
         await w.forget('hero');
         process.kill(process.pid, 'SIGKILL');`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.signal, child.stderr).toBe('SIGKILL');
    const journal = path.join(root, '.assetgen.lock.journal');
    fs.appendFileSync(journal, '{"id":"torn","entry":{"ki'); // the append a crash cut short
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(sample())); // the lock file itself untouched
    const seen = readLock(file);
    expect(seen.assets.torch!.job).toMatchObject({ jobId: 'vid_9', credits: 180, idempotencyKey: 'k9' });
    expect(seen.assets.hero).toBeUndefined();
    expect(seen.assets.torn).toBeUndefined();
    fs.rmSync(claimFileFor(file)); // the dead process's claim (another pid on this host: taken over anyway)
    const writer = writerFor(file);
    expect(fs.existsSync(journal)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(seen));
    expect(writer.lock).toEqual(seen);
  });

  it('a journal line that is not a record (not the torn last one) is an error naming the file', () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    fs.writeFileSync(path.join(root, '.assetgen.lock.journal'), 'garbage\n{"id":"a","entry":null}\n');
    const error = thrown(() => readLock(file)) as LockError;
    expect(error).toBeInstanceOf(LockError);
    expect(error.message).toContain('.assetgen.lock.journal: line 1 is not a journal record');
  });

  it('a writer opened for a service records its host with each finish (provenance)', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const writer = LockWriter.open(file, { service: 'assets.example.com' });
    open.push(writer);
    await writer.submitted('icon', { spec: 'S', kind: 'image', agent: 'a', idempotencyKey: 'k' });
    await writer.finished('icon', { files: [], credits: 10 });
    expect(readLock(file).assets.icon).toMatchObject({ service: 'assets.example.com', credits: 10 });
    expect(readLock(file).assets.icon!.jobId).toBeUndefined();
  });

  it('applies concurrent updates in the order they were made', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const writer = writerFor(file);
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
    const writer = writerFor(file);
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

  it('writes, after any mix of updates, the same bytes as serialising the lock afresh', async () => {
    const file = path.join(tempDir(), 'assetgen.lock');
    fs.writeFileSync(file, serializeLock(sample()));
    const writer = writerFor(file);
    // What a reader sees (the lock with the journal replayed), serialised.
    const onDisk = (): string => serializeLock(readLock(file));
    await writer.submitted('torch', { spec: 'S3', kind: 'video', idempotencyKey: 'k' });
    expect(onDisk()).toBe(serializeLock(writer.lock));
    await Promise.all([writer.failed('torch'), writer.submitted('new', { spec: 'N', kind: 'image', agent: 'x', idempotencyKey: 'n' })]);
    expect(onDisk()).toBe(serializeLock(writer.lock));
    await writer.finished('new', { files: [{ path: 'b.png', sha256: SHA, size: 1 }], credits: 3 });
    expect(onDisk()).toBe(serializeLock(writer.lock));
    await writer.forget('hero');
    expect(onDisk()).toBe(serializeLock(writer.lock));
    await writer.replace(sample());
    expect(onDisk()).toBe(serializeLock(sample()));
    await writer.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(sample()));
  });

  it('refuses to finish what was never submitted, and later updates still land', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const writer = writerFor(file);
    await expect(writer.finished('ghost', { files: [], credits: 0 })).rejects.toThrow('no job was submitted');
    await writer.submitted('real', { spec: 'R', kind: 'image', agent: 'x', idempotencyKey: 'k' });
    await writer.flush();
    expect(Object.keys(readLock(file).assets)).toEqual(['real']);
  });

  it('replace() writes a whole lock (lock merge)', async () => {
    const file = path.join(tempDir(), 'assetgen.lock');
    const writer = writerFor(file);
    await writer.replace(sample());
    expect(serializeLock(readLock(file))).toBe(serializeLock(sample()));
    await writer.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(serializeLock(sample()));
  });
});

describe('the writer claim', () => {
  it('keeps a second writer out while the first is open, and is gone after close()', async () => {
    const root = tempDir();
    const file = path.join(root, 'assetgen.lock');
    const first = LockWriter.open(file);
    const error = thrown(() => LockWriter.open(file)) as LockError;
    expect(error).toBeInstanceOf(LockError);
    expect(error.message).toBe(
      `${file} is being written by another assetgen (pid ${process.pid} on ${os.hostname()}, since ${JSON.parse(fs.readFileSync(claimFileFor(file), 'utf8')).since}).`,
    );
    expect(error.hint).toContain(claimFileFor(file));
    await first.submitted('a', { spec: 'A', kind: 'video', idempotencyKey: 'k' });
    await first.close();
    expect(fs.existsSync(claimFileFor(file))).toBe(false);
    const second = writerFor(file);
    expect(second.lock.assets.a!.job!.spec).toBe('A');
  });

  it('takes over the claim of a process that died (a crash mid-build)', () => {
    const file = path.join(tempDir(), 'assetgen.lock');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    fs.writeFileSync(claimFileFor(file), JSON.stringify({ pid: dead, host: os.hostname(), since: '2026-01-01T00:00:00Z' }));
    writerFor(file);
    expect(JSON.parse(fs.readFileSync(claimFileFor(file), 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('a claim appears whole (drafted, then linked into place): a draft left by a killed process blocks nothing', () => {
    const file = path.join(tempDir(), 'assetgen.lock');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    fs.writeFileSync(`${claimFileFor(file)}.${dead}.tmp`, '');
    const writer = writerFor(file);
    expect(JSON.parse(fs.readFileSync(claimFileFor(file), 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname() });
    // This process's own draft is gone once the claim is made.
    expect(fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith(`.${process.pid}.tmp`))).toEqual([]);
    expect(writer.file).toBe(file);
  });

  it('leaves alone a claim from another host, and a fresh claim still being written', () => {
    const file = path.join(tempDir(), 'assetgen.lock');
    fs.writeFileSync(claimFileFor(file), JSON.stringify({ pid: 1, host: 'build-agent-7', since: 'x' }));
    expect(thrown(() => LockWriter.open(file)).message).toContain('(pid 1 on build-agent-7, since x)');
    fs.writeFileSync(claimFileFor(file), '');
    expect(thrown(() => LockWriter.open(file)).message).toBe(`${file} is being written by another assetgen.`);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(claimFileFor(file), old, old);
    writerFor(file);
  });

  it('gives the claim back when the lock cannot be read', () => {
    const file = path.join(tempDir(), 'assetgen.lock');
    fs.writeFileSync(file, '{ not json');
    expect(thrown(() => LockWriter.open(file))).toBeInstanceOf(LockError);
    expect(fs.existsSync(claimFileFor(file))).toBe(false);
  });
});
