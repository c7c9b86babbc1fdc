// `assetgen generate --variants N` against the real mock and its ledger: N takes are N paid calls
// with keys derived from one, each a different picture; the same key again replays every take for
// free; the count is confirmed before anything is paid; a failure part-way reports the takes saved
// and a command that pays only for the rest.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson, shellWords, type CliResult } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 5000 }, config: { credits: 5000, faults: { rate: 0 } } });
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  env = project.env();
});

const cli = (args: string[], options: { interrupt?: AbortSignal; onStderr?: (text: string) => void } = {}) =>
  project.run(args, { env, ...options });
/** The generations charged so far (the ledger's image charges), oldest first. */
const charges = async () => (await project.ledger()).filter((entry) => entry.reason.startsWith('generate '));
const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const inProject = (...parts: string[]): string => path.join(project.cwd, ...parts);

/** Runs a printed command (minus the leading `assetgen`) in-process. */
async function runPrinted(command: string): Promise<CliResult> {
  const words = shellWords(command);
  expect(words[0]).toBe('assetgen');
  return cli(words.slice(1));
}

const restLine = (stderr: string): string => {
  const match =
    /^Make the rest with the same keys \(the takes already paid for replay, free, if the service honours Idempotency-Key\): (assetgen .+)$/m.exec(
      stderr,
    );
  if (!match) throw new Error(`no command for the rest in:\n${stderr}`);
  return match[1]!;
};

describe('generate --variants N', () => {
  it('3 takes: 3 charges under keys derived from the one given, 3 files of different bytes; the same key again: 0 charges, the same bytes', async () => {
    const args = ['generate', 'bat enemy', '--agent', 'sprite-artist', '--variants', '3', '--yes', '-o', 'sprites/bat.png'];
    const first = await cli([...args, '--idempotency-key', 'bat-takes', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const document = parseJson(first);
    const files = [1, 2, 3].map((k) => inProject('sprites', `bat-${k}.png`));
    expect(document.saved).toEqual(files);
    expect(document.takes).toEqual(
      files.map((file, i) => ({
        k: i + 1,
        path: file,
        size: fs.statSync(file).size,
        sha256: sha256(file),
        credits: 10,
        id: expect.stringMatching(/^gen_/),
      })),
    );
    expect(document.credits).toMatchObject({ charged: 30 });
    expect(document.idempotencyKey).toBe('bat-takes');
    expect(new Set(files.map(sha256)).size).toBe(3);
    expect((await charges()).map((entry) => entry.idempotencyKey)).toEqual(['bat-takes', 'bat-takes-take-2', 'bat-takes-take-3']);

    const before = files.map(sha256);
    const again = await cli([...args, '--idempotency-key', 'bat-takes', '--force', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson(again).credits).toMatchObject({ charged: 0 });
    expect(parseJson(again).takes.map((take: { credits: number }) => take.credits)).toEqual([0, 0, 0]);
    expect(await charges()).toHaveLength(3);
    expect(files.map(sha256)).toEqual(before);
  });

  it('a folder keeps the service names, as a single generate does; people get each path on stdout and the total', async () => {
    const result = await cli(['generate', 'slime', '--agent', 'sprite-artist', '--variants', '2', '--yes', '-o', 'out/']);
    expect(result.code, result.stderr).toBe(0);
    const saved = result.stdout.trim().split('\n');
    expect(saved).toHaveLength(2);
    for (const file of saved) expect(path.dirname(file)).toBe(inProject('out'));
    expect(saved.map((file) => path.basename(file))).toEqual(expect.arrayContaining([expect.stringMatching(/^gen_\w+\.png$/)]));
    expect(result.stderr).toContain('Charged 20 credits');
    expect(await charges()).toHaveLength(2);
  });

  it.each([['0'], ['17'], ['2.5'], ['x'], ['-1']])('--variants %s: a usage error (exit 2), nothing charged', async (n) => {
    const result = await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', n, '--yes', '--json']);
    expect(result.code).toBe(2);
    expect(jsonError(result)).toMatchObject({
      code: 'usage',
      exitCode: 2,
      message: expect.stringContaining('Use a whole number from 1 to 16.'),
    });
    expect(await charges()).toHaveLength(0);
  });

  it('-o - (stdout) cannot take several files: exit 2, nothing charged', async () => {
    const result = await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '2', '--yes', '-o', '-']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('-o - (stdout) takes one file; 2 takes are 2 files.');
    expect(await charges()).toHaveLength(0);
  });

  it('an existing take file is refused before anything is paid (without --force), as a single file is (exit 1)', async () => {
    fs.writeFileSync(inProject('bat-2.png'), 'mine');
    const result = await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '3', '--yes', '-o', 'bat.png']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bat-2.png already exists');
    expect(fs.readFileSync(inProject('bat-2.png'), 'utf8')).toBe('mine');
    expect(await charges()).toHaveLength(0);
  });

  it('without a terminal, or with --json, N paid calls need --yes: refused with the number stated, nothing charged', async () => {
    const plain = await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '4']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('4 takes are 4 paid calls');
    expect(plain.stderr).toContain('pass --yes to confirm');
    const json = await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '4', '--json']);
    expect(json.code).toBe(2);
    expect(json.stdout).toBe('');
    expect(jsonError(json)).toMatchObject({ code: 'usage', message: expect.stringContaining('4 takes are 4 paid calls') });
    expect(await charges()).toHaveLength(0);
    // One take is the single generate it always was: no confirmation.
    expect((await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '1'])).code).toBe(0);
    expect(await charges()).toHaveLength(1);
  });

  it('take 2 refused (402): take 1 is reported with the command for the rest; that command pays only for takes 2 and 3', async () => {
    await project.mock.config({ credits: 10 });
    const failed = await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '3', '--yes', '-o', 'bat.png', '--json']);
    expect(failed.code).toBe(5);
    expect(failed.stdout).toBe('');
    const error = jsonError(failed);
    const take1 = inProject('bat-1.png');
    expect(error.takes).toEqual([
      { k: 1, path: take1, size: fs.statSync(take1).size, sha256: sha256(take1), credits: 10, id: expect.stringMatching(/^gen_/) },
    ]);
    expect(error.resume).toMatch(
      /^assetgen generate bat --agent sprite-artist --variants 3 --idempotency-key [\w-]+ -o bat\.png --force --yes$/,
    );
    expect(error.credits).toMatchObject({ charged: 10 });
    expect(fs.existsSync(inProject('bat-2.png'))).toBe(false);
    const take1Bytes = sha256(take1);

    // People get the same: the saved take and the command.
    await project.mock.config({ credits: 0 });
    const human = await cli(shellWords(error.resume).slice(1));
    expect(human.code).toBe(5);
    expect(human.stderr).toContain('Saved before it: take 1 bat-1.png (0 credits).');
    expect(restLine(human.stderr)).toBe(error.resume);

    await project.mock.config({ credits: 1000 });
    const rest = await runPrinted(error.resume);
    expect(rest.code, rest.stderr).toBe(0);
    expect(sha256(take1)).toBe(take1Bytes);
    const keys = (await charges()).map((entry) => entry.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    expect(new Set([1, 2, 3].map((k) => sha256(inProject(`bat-${k}.png`)))).size).toBe(3);
  });

  it('Ctrl-C between takes: exit 130 with the command for the rest; running it leaves every take charged exactly once', async () => {
    const controller = new AbortController();
    const interrupted = await cli(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '3', '--yes', '-o', 'bat.png'], {
      interrupt: controller.signal,
      onStderr: (text) => {
        if (text.includes('Take 2 of 3')) controller.abort();
      },
    });
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(/Saved before it: take 1 bat-1\.png \(10 credits\)/);
    const rest = await runPrinted(restLine(interrupted.stderr));
    expect(rest.code, rest.stderr).toBe(0);
    const keys = (await charges()).map((entry) => entry.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    for (const k of [1, 2, 3]) expect(fs.existsSync(inProject(`bat-${k}.png`))).toBe(true);
  });
});
