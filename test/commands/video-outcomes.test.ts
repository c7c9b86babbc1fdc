// The two video endings the service document allows but a happy path never shows, produced by the
// mock's knobs (docs/mock-server.md): a failed job whose refund comes later (`refunded: false` at
// the failing poll), and a job that "succeeded" with `output: null`. Both exit 6 with a clear message.
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(async () => {
  home = tempHome();
  await mock.reset();
  await mock.config({ videoPollAfterMs: 0, videoSteps: 1 });
});
afterEach(() => home.remove());

const cli = (args: string[]) =>
  runInProcess(args, { env: { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey }, cwd: home.cwd });

describe('a failed video job whose refund the service applies later', () => {
  it('exit 6, "no refund yet" with how to check, credits not counted as refunded; the refund arrives on the service clock', async () => {
    await mock.config({ videoOutcome: 'fail', videoRefundDelayMs: 300 });
    const result = await cli(['video', 'create', 'torch', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(6);
    const error = jsonError(result);
    expect(error).toMatchObject({ code: 'job_failed', exitCode: 6, refunded: false, job: { resume: null } });
    expect(error.message).toContain('reports no refund of the 180 credits yet');
    expect(error.hint).toContain(`assetgen video get ${error.jobId}`);
    expect(error.credits).toMatchObject({ charged: 181, refunded: 0 });
    // The refund is due on the service's clock, 300 ms after the failure the CLI reported: not at the
    // failing poll. (Whether it has come by now depends on the machine's load, so only when it is due
    // is checked, not that the ledger still lacks it.)
    const { videos, ledger } = await mock.state();
    expect(videos[0].refundAt - Date.parse(videos[0].updatedAt)).toBeGreaterThanOrEqual(299);
    expect(ledger.map((entry) => entry.amount).slice(0, 2)).toEqual([-180, -1]);

    // Bounded: the refund is due 300 ms after the failure; look for it for at most 3 s.
    const deadline = Date.now() + 3_000;
    let refunds: number[] = [];
    while (Date.now() < deadline && !refunds.length) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      refunds = (await mock.state()).ledger.map((entry) => entry.amount).filter((amount) => amount > 0);
    }
    expect(refunds).toEqual([180]);
    const later = await cli(['video', 'get', error.jobId, '--json']);
    expect(parseJson(later)).toMatchObject({ status: 'failed', refunded: true, refund: { amount: 180 } });
  });

  it('human: the failure, the missing refund and the command to check it', async () => {
    await mock.config({ videoOutcome: 'fail', videoRefundDelayMs: 60_000 });
    const result = await cli(['video', 'create', 'torch', '--yes']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/failed: The renderer could not produce this clip\. The service reports no refund/);
    expect(result.stderr).toMatch(/`assetgen video get vid_\w+` shows when it has/);
    expect(result.stderr).not.toMatch(/resume with|bug in assetgen/);
  });
});

describe('a video job that succeeded with output: null', () => {
  it('exit 6 (code job_empty): nothing saved, nothing to resume, the charge stays and it says so', async () => {
    await mock.config({ videoOutcome: 'empty' });
    const json = await cli(['video', 'create', 'torch', '--yes', '--json', '-o', 'out/']);
    expect(json.code, json.stderr).toBe(6);
    const error = jsonError(json);
    expect(error).toMatchObject({ code: 'job_empty', exitCode: 6, refunded: false, job: { kind: 'video', resume: null } });
    expect(error.message).toMatch(/succeeded, but the service sent no video/);
    expect(error.hint).toMatch(/180 credits stay charged/);
    expect(fs.existsSync(`${home.cwd}/out`) ? fs.readdirSync(`${home.cwd}/out`) : []).toEqual([]);
    const state = await mock.state();
    expect(state.videos[0]).toMatchObject({ status: 'succeeded', outcome: 'empty' });
    expect(state.ledger.filter((entry) => entry.amount > 0)).toEqual([]);

    const human = await cli(['video', 'wait', error.jobId]);
    expect(human.code).toBe(6);
    expect(human.stderr).toContain('Waiting again will not help');
    expect(human.stderr).not.toMatch(/resume with|bug in assetgen|Raw response/);
    const get = await cli(['video', 'get', error.jobId]);
    expect(get.code).toBe(0);
    expect(get.stderr).toContain('the service sent no video for it');
    // Nothing left to do: `assetgen jobs` offers no wait (each would pay a poll and exit 6 again).
    const jobs = JSON.parse((await cli(['jobs', '--json'])).stdout) as { jobs: { id: string; resume: string | null }[] };
    expect(jobs.jobs.find((job) => job.id === error.jobId)).toMatchObject({ resume: null });
  });
});
