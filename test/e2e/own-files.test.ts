// Contract 2 of issue 26, on the real binary (a hang must be a failed test, not a stuck worker):
// every file assetgen opens for itself is a regular file or refused — a FIFO at the lock's journal
// or at the lock is a clear error (exit 2), never a wait — and SIGTERM always ends a run, even
// one waiting on a pipe that never closes or on a service that never answers (exit 130).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, collect, runCli, spawnCli } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { HAS_FIFOS, runsHere } from '../support/platform.js';

const project = useMockProject({ mock: { credits: 1000 }, config: {} });
const SWORD = 'assets:\n  - { id: sword, prompt: a sword, agent: sprite-artist, out: assets/ }\n';
const cli = (args: string[]) => runCli(args, { env: project.env(), cwd: project.cwd });

const mkfifo = (file: string): void => void execFileSync('mkfifo', [file]);

/** Bounded: at most `tries` looks, `ms` apart, until `ready()` holds. */
async function until(ready: () => boolean, tries = 200, ms = 50): Promise<void> {
  for (let i = 0; i < tries && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, ms));
  expect(ready()).toBe(true);
}

describe.runIf(runsHere('a FIFO where assetgen keeps its own file', HAS_FIFOS, 'no FIFOs (mkfifo) on Windows'))(
  'a FIFO where assetgen keeps its own file',
  () => {
    it.each([
      ['the journal', '.assetgen.lock.journal'],
      ['the lock', 'assetgen.lock'],
    ])('at %s: every command that reads the lock says so and exits 2, nothing charged', async (_name, file) => {
      fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), SWORD);
      mkfifo(path.join(project.cwd, file));
      for (const args of [
        ['build', '--dry-run'],
        ['build', '--yes'],
        ['report', '-o', 'gallery.html'],
      ]) {
        const result = await cli(args);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toContain(`${file} is a named pipe (FIFO), not a regular file`);
        expect(result.stderr).not.toMatch(/This is a bug|\n\s+at /);
      }
      expect(await project.ledger()).toEqual([]);
      expect(fs.lstatSync(path.join(project.cwd, file)).isFIFO()).toBe(true);
    });
  },
);

describe('SIGTERM ends a run that waits', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('waiting on a stdin that never closes (auth login --with-key): exit 130, the wait itself ended', async () => {
    const env = { ...project.home.env, ASSETGEN_CONFIG_DIR: path.join(project.home.home, 'config') };
    const child = spawn(process.execPath, [BIN, 'auth', 'login', '--with-key', '--no-verify'], { env, cwd: project.cwd, stdio: 'pipe' });
    const done = collect(child, 30_000);
    // The credential store makes its folder just before the key is read from stdin (left open here).
    await until(() => fs.existsSync(env.ASSETGEN_CONFIG_DIR));
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    // Ended by the wait listening to the signal, not by the backstop that stops a run 10 s later.
    expect(result.stderr).not.toContain('still running');
    child.stdin!.destroy();
  });

  it('waiting on a service that never answers (build): exit 130, the paid call kept in the lock to resume', async () => {
    let requests = 0;
    server = http.createServer(() => void requests++); // accepts every request, answers none
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), SWORD);
    const child = spawnCli(['build', '--yes'], { env: { ...project.env(), ASSETGEN_BASE_URL: url }, cwd: project.cwd });
    const done = collect(child, 30_000);
    await until(() => requests > 0);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).not.toContain('still running');
    // The claim is given up: the next build may run.
    expect(fs.existsSync(path.join(project.cwd, '.assetgen.lock.writer'))).toBe(false);
  });
});
