// Contract 4 of issue 26: assetgen's own temp files (src/files/temp-files.ts) record their writer
// (host, pid, start time), and a sweep removes one only when that writer is provably gone: a live
// writer's is kept, a dead one's removed, a file of any other name kept, a link never followed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathRefusedError, sweepFolder, writeFileInside } from '../../src/files/confine.js';
import { HOST_TAG, processStart, removeStaleTemps, tempFor, WRITER_TAG, writerIsGone, writerOf } from '../../src/files/temp-files.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-temps-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has run and exited (a writer killed, as far as its temp files know). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const tempName = (tag: string, name = 'hero.png'): string => `.${name}.${tag}.0123abcd.assetgen`;
const put = (name: string, content = 'half a file'): string => {
  fs.writeFileSync(path.join(dir, name), content);
  return name;
};
const left = (): string[] => fs.readdirSync(dir).sort();

describe("assetgen's temp files", () => {
  it('are named for their target and their writer, this process', () => {
    const temp = tempFor(path.join(dir, 'hero.png'));
    expect(path.dirname(temp)).toBe(dir);
    expect(path.basename(temp)).toMatch(/^\.hero\.png\.[0-9a-f]{6}-\d+-\d+\.[0-9a-f]{8}\.assetgen$/);
    expect(writerOf(path.basename(temp))).toEqual({ host: HOST_TAG, pid: process.pid, start: Number(WRITER_TAG.split('-')[2]) });
    // A name near the 255-byte limit still leaves room for the temp's own parts.
    const long = tempFor(path.join(dir, `${'é'.repeat(120)}.png`));
    expect(Buffer.byteLength(path.basename(long))).toBeLessThanOrEqual(255);
    expect(writerOf(path.basename(long))?.pid).toBe(process.pid);
  });

  it("a live writer's temp file is kept (this process, and another live process)", async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => other.once('spawn', resolve));
      put(tempName(WRITER_TAG));
      put(tempName(`${HOST_TAG}-${other.pid}-${processStart(other.pid!) ?? 0}`, 'sword.png'));
      expect(removeStaleTemps(dir)).toEqual([]);
      expect(left()).toHaveLength(2);
    } finally {
      other.kill();
    }
  });

  it("a dead writer's temp file is removed, and only that", () => {
    const pid = deadPid();
    const dead = tempName(`${HOST_TAG}-${pid}-1`);
    put(dead);
    const otherHost = HOST_TAG === 'ffffff' ? 'eeeeee' : 'ffffff';
    const others = [
      put('hero.png', 'the real file'),
      put('.hero.png.0123456789ab.assetgen'), // the old unnamed form: whose it was cannot be proved
      put(`.hero.png.${pid}.0123abcd.tmp`),
      put(`${dead}.bak`),
      put(dead.slice(1)), // not hidden: not our form
      put(tempName(`${otherHost}-${pid}-1`)), // another machine's (a shared folder): it may be writing it now
    ];
    expect(removeStaleTemps(dir)).toEqual([dead]);
    expect(left()).toEqual(others.sort());
  });

  it.runIf(processStart(process.pid) !== undefined)(
    'a temp file whose pid now belongs to a later process is removed (Linux: start times differ)',
    () => {
      const start = processStart(process.pid)!;
      expect(writerIsGone({ host: HOST_TAG, pid: process.pid, start })).toBe(false);
      expect(writerIsGone({ host: HOST_TAG, pid: process.pid, start: start + 1 })).toBe(true);
      put(tempName(`${HOST_TAG}-${process.pid}-${start + 1}`));
      expect(removeStaleTemps(dir)).toHaveLength(1);
      expect(left()).toEqual([]);
    },
  );

  it('a link named like a dead temp file is never followed, nor removed', () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'keep.txt'), 'keep');
      const pid = deadPid();
      fs.symlinkSync(path.join(outside, 'keep.txt'), path.join(dir, tempName(`${HOST_TAG}-${pid}-1`)));
      fs.symlinkSync('/nonexistent/x', path.join(dir, tempName(`${HOST_TAG}-${pid}-1`, 'b.png')));
      expect(removeStaleTemps(dir)).toEqual([]);
      expect(left()).toHaveLength(2);
      expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep');
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a save into a folder sweeps it first; a folder that leads outside is refused, its files untouched', async () => {
    fs.mkdirSync(path.join(dir, 'assets'));
    const dead = tempName(`${HOST_TAG}-${deadPid()}-1`);
    fs.writeFileSync(path.join(dir, 'assets', dead), 'cut short');
    await writeFileInside(dir, 'assets/hero.json', '{}');
    expect(fs.readdirSync(path.join(dir, 'assets'))).toEqual(['hero.json']);

    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-outside-'));
    try {
      fs.writeFileSync(path.join(outside, dead), 'not ours to judge');
      fs.symlinkSync(outside, path.join(dir, 'elsewhere'));
      expect(() => sweepFolder(dir, 'elsewhere')).toThrow(PathRefusedError);
      expect(fs.readdirSync(outside)).toEqual([dead]);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
