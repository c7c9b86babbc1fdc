// A build's failed videos and their refunds, held to the service's ledger: the cap frees a refund
// only once an answer states it (its amount), and a build counts only a refund made while it
// watched the job — never one the service had made before (docs/build.md, "Credits").
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, runInProcess } from '../support/cli.js';
import { chargingService, POLL_PRICE, VIDEO_PRICE } from '../support/charging-service.js';
import { useScriptedService } from '../support/http.js';
import { useMockProject } from '../support/project.js';

const videos = (n: number): string =>
  `assets:\n${Array.from({ length: n }, (_, i) => `  - { id: vid${i + 1}, video: torch number ${i + 1}, out: assets/fx/ }`).join('\n')}\n`;

describe('a build of failing videos under --max-credits 370 (-j 1)', () => {
  const scripted = useScriptedService(runInProcess);
  const build = async (service: ReturnType<typeof chargingService>, jobs = '1') => {
    fs.writeFileSync(path.join(scripted.home.cwd, 'assetgen.yaml'), videos(4));
    const result = await scripted.against(service.handler, [
      'build',
      '-j',
      jobs,
      '--yes',
      '--max-credits',
      '370',
      '--timeout',
      '30s',
      '--json',
    ]);
    const document = parseJson(result);
    const outcomes = Object.fromEntries((document.items as { id: string; outcome: string }[]).map((item) => [item.id, item.outcome]));
    return { result, document, outcomes };
  };

  it('records silent about refunds (the refund comes 60 s later): nothing freed, the ledger stays within the cap', async () => {
    const service = chargingService({ videoOutcome: 'fail', refund: { afterMs: 60_000, stated: false } });
    const { result, document, outcomes } = await build(service);
    // Two videos fit (180 + 2 polls each); the third would pass the cap while no refund is known.
    expect(service.charged()).toBe(2 * (VIDEO_PRICE + 2 * POLL_PRICE));
    expect(service.charged()).toBeLessThanOrEqual(370);
    // A failure outranks the cap in the exit code (1, not 8).
    expect(result.code, result.stderr).toBe(1);
    expect(outcomes).toEqual({ vid1: 'failed', vid2: 'failed', vid3: 'capped', vid4: 'capped' });
    expect(document.credits).toMatchObject({ charged: service.charged(), refunded: service.refunded() });
    expect(document.credits.refunded).toBe(0);
  });

  it('-j 16, records silent about refunds: nothing freed, the ledger within the cap, every figure the ledger’s', async () => {
    const service = chargingService({ videoOutcome: 'fail', refund: { afterMs: 60_000, stated: false } });
    const { document } = await build(service, '16');
    expect(service.charged()).toBeLessThanOrEqual(370);
    expect(document.credits).toMatchObject({ charged: service.charged(), refunded: 0 });
  });

  it('a stated refund (100 of the 180) is freed at its amount: the credits say the ledger’s refunds', async () => {
    const service = chargingService({ videoOutcome: 'fail', refund: { amount: 100 } });
    const { result, document, outcomes } = await build(service);
    // Each failed video nets 182 − 100 = 82: the third starts at 164 + 180 ≤ 370, the fourth would not (246 + 180).
    expect(outcomes).toEqual({ vid1: 'failed', vid2: 'failed', vid3: 'failed', vid4: 'capped' });
    expect(result.code, result.stderr).toBe(1);
    expect(service.refunded()).toBe(3 * 100);
    expect(document.credits).toMatchObject({ charged: service.charged(), refunded: service.refunded() });
    expect(service.spent()).toBeLessThanOrEqual(370);
  });
});

describe('a build that resumes a video job the service failed and refunded before the build', () => {
  const project = useMockProject({
    mock: { credits: 10_000 },
    config: { credits: 10_000, videoOutcome: 'fail', videoSteps: 1, videoPollAfterMs: 0, faults: { rate: 0 } },
  });

  it('counts no refund: the ledger took only its poll meanwhile', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), videos(1));
    // A cap of 180 pays the submission and stops before the first poll: the job is kept in the lock.
    const capped = await project.run(['build', '--yes', '--max-credits', '180', '--json']);
    expect(capped.code, capped.stderr).toBe(8);
    const jobId = readLock(path.join(project.cwd, 'assetgen.lock')).assets.vid1!.job!.jobId!;
    expect(jobId).toMatch(/^vid_/);
    // The mock fails it on its own clock (a second after its one poll was due) and refunds it: at most 5 s.
    const deadline = Date.now() + 5_000;
    while (!(await project.ledger()).some((entry) => entry.reason === `refund ${jobId}`) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const before = (await project.ledger()).length;
    expect((await project.ledger()).some((entry) => entry.reason === `refund ${jobId}`)).toBe(true);

    const resumed = await project.run(['build', '--yes', '--json']);
    const during = (await project.ledger()).slice(before);
    expect(during.map((entry) => entry.reason)).toEqual([`poll ${jobId}`]);
    const document = parseJson(resumed);
    expect(document.items).toMatchObject([{ id: 'vid1', outcome: 'failed' }]);
    expect(document.credits).toMatchObject({ charged: 1, refunded: 0 });
    expect(document.credits.charged - document.credits.refunded).toBe(-during.reduce((sum, entry) => sum + entry.amount, 0));
  });
});
