// Windows behaviours, checked on any system by setting the platform (src/platform.ts): renames retried
// while another program holds the file, hard-link fallbacks, Ctrl+Break and the console closing,
// POSIX lock paths from Windows paths. The files are real (temp dirs); only the failures are injected.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { localFileErrorOf, LocalFileError } from '../../src/config/errors.js';
import { execute } from '../../src/cli/execute.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/files/atomic.js';
import { createFileInsideSync } from '../../src/files/confine.js';
import { RENAME_RETRY_DELAYS_MS } from '../../src/files/rename.js';
import { lockPath } from '../../src/pipeline/hash.js';
import { interruptSignals, setPlatformForTesting } from '../../src/platform.js';
import { tempHome } from '../support/cli.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-win-'));
  setPlatformForTesting('win32');
});
afterEach(() => {
  setPlatformForTesting(undefined);
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The error Node gives for a rename another program blocks. */
const held = (code: string, from: string, to: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: operation not permitted, rename '${from}' -> '${to}'`), {
    code,
    syscall: 'rename',
    path: from,
    dest: to,
  });

describe('renames on Windows', () => {
  it('retry EPERM (twice) and EBUSY, then succeed: the new content is in place, no temp file left', async () => {
    const file = path.join(dir, 'sword.png');
    fs.writeFileSync(file, 'old');
    const rename = vi.spyOn(fs.promises, 'rename');
    rename.mockImplementationOnce(async (from, to) => Promise.reject(held('EPERM', String(from), String(to))));
    rename.mockImplementationOnce(async (from, to) => Promise.reject(held('EPERM', String(from), String(to))));
    await writeFileAtomic(file, 'new');
    expect(rename).toHaveBeenCalledTimes(3);
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.readdirSync(dir)).toEqual(['sword.png']);

    const renameSync = vi.spyOn(fs, 'renameSync');
    renameSync.mockImplementationOnce((from, to) => {
      throw held('EBUSY', String(from), String(to));
    });
    writeFileAtomicSync(file, 'newer');
    expect(renameSync).toHaveBeenCalledTimes(2);
    expect(fs.readFileSync(file, 'utf8')).toBe('newer');
    expect(fs.readdirSync(dir)).toEqual(['sword.png']);
  });

  it('give up after the bound with a clear error, the old file whole and no temp file left', async () => {
    const file = path.join(dir, 'sword.png');
    fs.writeFileSync(file, 'old');
    const rename = vi
      .spyOn(fs.promises, 'rename')
      .mockImplementation(async (from, to) => Promise.reject(held('EACCES', String(from), String(to))));
    const error = await writeFileAtomic(file, 'new').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(rename).toHaveBeenCalledTimes(RENAME_RETRY_DELAYS_MS.length + 1);
    expect((error as NodeJS.ErrnoException).code).toBe('EACCES');
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(fs.readdirSync(dir)).toEqual(['sword.png']);
    const shown = localFileErrorOf(error) as LocalFileError;
    expect(shown).toBeInstanceOf(LocalFileError);
    expect(shown.message).toBe(`Cannot replace ${file}: another program kept it open (EACCES); it was not changed.`);
    expect(shown.hint).toMatch(/^Close the program that has it open/);
  });

  it('elsewhere a failed rename is not retried (EPERM there is a real refusal)', async () => {
    setPlatformForTesting('linux');
    const file = path.join(dir, 'sword.png');
    const rename = vi
      .spyOn(fs.promises, 'rename')
      .mockImplementation(async (from, to) => Promise.reject(held('EPERM', String(from), String(to))));
    await expect(writeFileAtomic(file, 'new')).rejects.toMatchObject({ code: 'EPERM' });
    expect(rename).toHaveBeenCalledTimes(1);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

it('a hard link refused with EACCES falls back to the exclusive create', () => {
  const link = vi.spyOn(fs, 'linkSync').mockImplementation(() => {
    throw Object.assign(new Error('EACCES: permission denied, link'), { code: 'EACCES', syscall: 'link' });
  });
  expect(createFileInsideSync(dir, path.join(dir, 'claim'), 'mine')).toBe(true);
  expect(link).toHaveBeenCalledTimes(1);
  expect(fs.readFileSync(path.join(dir, 'claim'), 'utf8')).toBe('mine');
  expect(createFileInsideSync(dir, path.join(dir, 'claim'), 'theirs')).toBe(false);
  expect(fs.readdirSync(dir)).toEqual(['claim']);
});

describe('Ctrl+Break and the console closing', () => {
  it('are interrupt signals on Windows only', () => {
    expect(interruptSignals()).toEqual(['SIGINT', 'SIGTERM', 'SIGBREAK', 'SIGHUP']);
    setPlatformForTesting('linux');
    expect(interruptSignals()).toEqual(['SIGINT', 'SIGTERM']);
  });

  for (const signal of ['SIGBREAK', 'SIGHUP'] as const) {
    it(`${signal} ends a run as Ctrl-C does (the command's signal aborts: exit 130), and its handler goes with the run`, async () => {
      const home = tempHome();
      // The grace timer (a hard exit 10 s after an interrupt) must never fire inside the test runner.
      vi.useFakeTimers({ toFake: ['setTimeout'] });
      try {
        const stderr = new PassThrough();
        let written = '';
        stderr.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
        const before = process.listeners(signal);
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        const code = execute(
          {},
          async (ctx) => {
            started();
            await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)));
          },
          {
            io: { stdin: new PassThrough(), stdout: new PassThrough(), stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false },
            env: home.env,
            cwd: home.cwd,
            signals: true,
          },
        );
        await running;
        // The run's own handler, called as the signal would call it: emitting a real signal here
        // would also reach other listeners in this shared test process.
        const added = process.listeners(signal).filter((listener) => !before.includes(listener));
        expect(added).toHaveLength(1);
        (added[0] as (signal: NodeJS.Signals) => void)(signal);
        expect(await code).toBe(EXIT.interrupted);
        expect(written).toMatch(/interrupt|cancel/i);
        expect(process.listeners(signal)).toEqual(before);
      } finally {
        vi.useRealTimers();
        home.remove();
      }
    });
  }
});

it('lock paths use `/` whatever the system wrote', () => {
  expect(lockPath('C:\\game', 'C:\\game\\assets\\icons\\sword.png')).toBe('assets/icons/sword.png');
  expect(lockPath('C:\\game', 'assets\\ui\\button.png')).toBe('assets/ui/button.png');
  setPlatformForTesting('darwin');
  expect(lockPath('/game', '/game/assets/icons/sword.png')).toBe('assets/icons/sword.png');
});
