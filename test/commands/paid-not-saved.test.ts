// A paid image whose file cannot be saved (here: a file put in the way while the service worked)
// is not lost: the error carries its Idempotency-Key (`--json`: idempotencyKey), its advice comes
// first and gets the same image again for no second charge, and `assetgen jobs` keeps the
// submission until its file is saved. Before, the hint said only --force, which paid again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError, parseJson, shellWords } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000, videoSteps: 1, videoPollAfterMs: 0 } });
const imageCharges = async () => (await project.ledger()).filter((entry) => entry.reason.startsWith('generate '));

describe('a paid image whose save fails', () => {
  it('keeps its key and its journal entry; the advice, followed, saves it for no second charge', async () => {
    await project.mock.hold(['generate']);
    const running = project.run(['generate', 'a raced gem', '--agent', 'sprite-artist', '-o', 'race.png', '--json']);
    await until('the generate held', async () => (await project.mock.state()).held >= 1);
    fs.writeFileSync(path.join(project.cwd, 'race.png'), 'mine');
    await project.mock.hold([]);
    const result = await running;
    expect(result.code, result.stderr).not.toBe(0);
    expect(await imageCharges()).toHaveLength(1);
    const error = jsonError(result);
    expect(error.idempotencyKey).toMatch(/^[\x21-\x7e]+$/);
    expect(error.hint).toMatch(
      new RegExp(
        `^It is paid for: run the same command again with --idempotency-key ${error.idempotencyKey} \\(and --force to replace a file in the way`,
      ),
    );
    expect(fs.readFileSync(path.join(project.cwd, 'race.png'), 'utf8')).toBe('mine');

    const jobs = parseJson(await project.run(['jobs', '--json'])).jobs as { kind: string; state: string; resume: string | null }[];
    expect(jobs).toEqual([
      expect.objectContaining({ kind: 'image', state: 'submitting', resume: expect.stringContaining(String(error.idempotencyKey)) }),
    ]);

    const again = await project.run([
      'generate',
      'a raced gem',
      '--agent',
      'sprite-artist',
      '-o',
      'race.png',
      '--force',
      '--idempotency-key',
      String(error.idempotencyKey),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(fs.readFileSync(path.join(project.cwd, 'race.png')).subarray(1, 4).toString()).toBe('PNG');
    expect(await imageCharges()).toHaveLength(1);
    expect(parseJson(await project.run(['jobs', '--json'])).jobs).toEqual([]);
  });
});

describe('a video job that succeeded but whose file could not be saved', () => {
  it('stays unfinished in `assetgen jobs`, whose command (with --force) saves it for no second charge', async () => {
    await project.mock.hold(['getVideo']);
    const running = project.run(['video', 'create', 'a raced torch', '--yes', '-o', 'fx/torch.gif', '--interval', '10ms', '--json']);
    await until('the poll held', async () => (await project.mock.state()).held >= 1);
    fs.mkdirSync(path.join(project.cwd, 'fx'), { recursive: true });
    fs.writeFileSync(path.join(project.cwd, 'fx', 'torch.gif'), 'mine');
    await project.mock.hold([]);
    const result = await running;
    expect(result.code, result.stderr).not.toBe(0);
    expect(jsonError(result).code).toBe('output_file');
    const videos = async () => (await project.ledger()).filter((entry) => entry.amount === -180);
    expect(await videos()).toHaveLength(1);

    const jobs = parseJson(await project.run(['jobs', '--json'])).jobs as { kind: string; state: string; resume: string | null }[];
    const video = jobs.find((job) => job.kind === 'video');
    expect(video, JSON.stringify(jobs)).toMatchObject({
      state: 'succeeded',
      resume: expect.stringMatching(/^assetgen video wait vid_\S+ -o fx\/torch\.gif/),
    });
    const resumed = await project.run([...shellWords(video!.resume!).slice(1), '--force']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(fs.readFileSync(path.join(project.cwd, 'fx', 'torch.gif')).length).toBeGreaterThan(4);
    expect(await videos()).toHaveLength(1);
    const after = parseJson(await project.run(['jobs', '--json'])).jobs as { kind: string; resume: string | null }[];
    expect(after.filter((job) => job.resume !== null)).toEqual([]);
  });
});
