// Every way `-o` can fail is found before paying: a name the file would really get (its type's
// extension added or corrected) that is taken, a job's files saved already, a folder this user
// may not write in. Each is refused with nothing charged on the mock's ledger: a file in the way
// as every output in the way is (exit 1, code output_file), a folder not writable as a usage error (exit 2).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, parseJson, TEST_PATH } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, videoSteps: 1, videoPollAfterMs: 0 } });
const spent = async (): Promise<number> => -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);
const file = (name: string): string => path.join(project.cwd, name);

/** Runs the command, which must be refused before paying: exit 2, the message, the ledger as it was. */
async function refusedBeforePaying(args: string[], message: string): Promise<void> {
  const before = await spent();
  const result = await project.run([...args, '--json']);
  expect(result.code, result.stderr).toBe(1);
  expect(JSON.parse(result.stderr).error.code).toBe('output_file');
  expect(JSON.parse(result.stderr).error.message).toContain(message);
  expect(await spent()).toBe(before);
}

describe('-o checked before paying, as the file will really be named', () => {
  it('a name without an extension whose typed name is taken (the second `-o items`)', async () => {
    expect((await project.run(['generate', 'x', '--agent', 'sprite-artist', '-o', 'items', '-q'])).code).toBe(0);
    expect(fs.existsSync(file('items.png'))).toBe(true);
    await refusedBeforePaying(['generate', 'x', '--agent', 'sprite-artist', '-o', 'items'], 'items.png already exists');
    // With --force it is replaced, as asked.
    expect((await project.run(['generate', 'x', '--agent', 'sprite-artist', '-o', 'items', '--force', '-q'])).code).toBe(0);
  });

  it('`-o -` with stdout a terminal: refused before paying (the bytes would be lost in the terminal)', async () => {
    const before = await spent();
    const result = await project.run(['generate', 'x', '--agent', 'sprite-artist', '-o', '-'], { tty: { stdout: true } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('-o - writes the file to stdout, which is a terminal here.');
    expect(await spent()).toBe(before);
    // Piped, it writes the bytes as before.
    const piped = await project.run(['generate', 'x', '--agent', 'sprite-artist', '-o', '-']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdoutBytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it('a name whose extension the bytes would correct (`-o items.jpg`, the service sends a PNG)', async () => {
    fs.writeFileSync(file('items.png'), 'mine');
    await refusedBeforePaying(['generate', 'x', '--agent', 'sprite-artist', '-o', 'items.jpg'], 'items.png already exists');
    expect(fs.readFileSync(file('items.png'), 'utf8')).toBe('mine');
  });

  it('a take of --variants whose name is taken', async () => {
    fs.writeFileSync(file('bat-1.png'), 'mine');
    await refusedBeforePaying(
      ['generate', 'x', '--agent', 'sprite-artist', '--variants', '2', '--yes', '-o', 'bat'],
      'bat-1.png already exists',
    );
  });

  it('video wait into a file or a folder holding the job’s video: no poll (each is charged), so its resume cannot loop', async () => {
    const created = await project.run(['video', 'create', 'clip', '--yes', '-o', 'fx/clip', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const id = parseJson(created).id as string;
    expect(fs.existsSync(file('fx/clip.gif'))).toBe(true);
    await refusedBeforePaying(['video', 'wait', id, '-o', 'fx/clip'], 'fx/clip.gif already exists');
    fs.copyFileSync(file('fx/clip.gif'), file(`fx/${id}.gif`));
    await refusedBeforePaying(['video', 'wait', id, '-o', 'fx/'], `fx/${id}.gif already exists`);
  });

  it('runs wait into a folder (or the current one) holding the run’s outputs', async () => {
    const started = await project.run(['workflows', 'run', 'wf_sprite_sheet', '-o', 'rr/', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = parseJson(started).id as string;
    await refusedBeforePaying(['runs', 'wait', id, '-o', 'rr/'], `rr/${id}-idle.png already exists`);
    for (const name of fs.readdirSync(file('rr'))) fs.copyFileSync(file(`rr/${name}`), file(name));
    await refusedBeforePaying(['runs', 'wait', id], `${id}-idle.png already exists`);
  });
});

// Root may write anywhere: the CLI runs as `nobody` through setpriv there; elsewhere as this user.
const asRoot = process.getuid?.() === 0;
const setpriv = asRoot ? ['/usr/bin/setpriv', '/bin/setpriv'].find((candidate) => fs.existsSync(candidate)) : undefined;
const canDropWrites = process.platform !== 'win32' && (!asRoot || setpriv !== undefined);

describe.runIf(canDropWrites)('an -o folder this user may not write in (POSIX permissions; as root, through setpriv)', () => {
  it('generate, video create and workflows run: exit 2 before paying, nothing written', async () => {
    const place = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-readonly-'));
    try {
      fs.chmodSync(place, 0o777);
      const readOnly = path.join(place, 'ro');
      fs.mkdirSync(readOnly, { mode: 0o555 });
      fs.chmodSync(readOnly, 0o555);
      const env = {
        PATH: TEST_PATH,
        HOME: place,
        ASSETGEN_CONFIG_DIR: path.join(place, 'config'),
        ASSETGEN_STATE_DIR: path.join(place, 'state'),
        ASSETGEN_BASE_URL: project.mock.url,
        ASSETGEN_API_KEY: project.mock.apiKey,
        NO_COLOR: '1',
        TZ: 'UTC',
      };
      const before = await spent();
      for (const args of [
        ['generate', 'sword', '--agent', 'sprite-artist', '-o', 'ro/'],
        ['generate', 'sword', '--agent', 'sprite-artist', '-o', 'ro/deeper/sword.png'],
        ['video', 'create', 'flame', '--yes', '-o', 'ro/'],
        ['workflows', 'run', 'wf_sprite_sheet', '-o', 'ro/'],
      ]) {
        const command = setpriv
          ? [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args, '--json']
          : [process.execPath, BIN, ...args, '--json'];
        const result = spawnSync(command[0]!, command.slice(1), { cwd: place, env, encoding: 'utf8', timeout: 20_000 });
        expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(2);
        expect(JSON.parse(result.stderr).error.message).toContain('may not write in');
      }
      expect(await spent()).toBe(before);
      expect(fs.readdirSync(readOnly)).toEqual([]);
    } finally {
      fs.rmSync(path.join(place), { recursive: true, force: true });
    }
  });
});
