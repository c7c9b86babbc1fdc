// A video's estimate says what its polls are known to cost: with an API key each poll is charged,
// and the lock records a video's whole cost (180 and its polls). The next estimate of a video of the
// same agent is that recorded total, as a workflow's is, so a cap the dry run passes is one the build
// keeps — no video paid for and then held back unfinished (docs/build.md, "Credits").
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { netSpend } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({
  mock: { credits: 100_000 },
  // Each video takes two polls: 180 + 2 with the API key.
  config: { credits: 100_000, videoSteps: 2, videoPollAfterMs: 0, faults: { rate: 0 } },
});
const manifest = (word: string): string =>
  `assets:\n  - { id: vid1, video: torch ${word} one, out: assets/fx/ }\n  - { id: vid2, video: torch ${word} two, out: assets/fx/ }\n`;
const build = (args: string[]): Promise<CliResult> => project.run(['build', '--yes', ...args]);
const lock = () => readLock(path.join(project.cwd, 'assetgen.lock'));

describe('the estimate of a video after one was built with the API key', () => {
  it('is the recorded 182 (observed), not the published 180: a cap the dry run passes, the build keeps', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('number') });
    expect((await build(['--json'])).code).toBe(0);
    expect(lock().assets.vid1!.credits).toBe(182);
    expect(lock().assets.vid2!.credits).toBe(182);

    writeFiles(project.cwd, { 'assetgen.yaml': manifest('numero') }); // both videos change
    const plan = parseJson(await build(['--dry-run', '--json']));
    expect(plan.estimate).toEqual({ credits: 364, unknown: [] });
    expect(plan.items).toMatchObject([
      { id: 'vid1', estimate: 182, priceSource: 'observed' },
      { id: 'vid2', estimate: 182, priceSource: 'observed' },
    ]);
    expect(plan.prices).toEqual([{ kind: 'video', credits: 182, source: 'observed', assets: 2, firstAsset: 'vid1' }]);
    const human = await build(['--dry-run']);
    expect(human.stderr).toContain('Estimated cost: 364 credits.');
    expect(human.stderr).toContain('Prices per call: video job 182 (observed in assetgen.lock).');

    // 363 is short of both videos with their polls: the dry run says so before anything is paid.
    const dry = await build(['--dry-run', '--max-credits', '363', '--json']);
    expect(dry.code, dry.stderr).toBe(8);
    expect(parseJson(dry).budget).toMatchObject({ max: 363, over: true });

    // The build: one video made, the other held back before its submission (nothing paid for it).
    const before = (await project.ledger()).length;
    const capped = await build(['--max-credits', '363', '--json']);
    const spent = netSpend((await project.ledger()).slice(before));
    expect(capped.code, capped.stderr).toBe(8);
    expect(jsonError(capped)).toMatchObject({ code: 'credit_cap' });
    expect(spent).toBe(182);
    const outcomes = (parseJson(capped).items as { id: string; outcome: string }[]).map((item) => item.outcome).sort();
    expect(outcomes).toEqual(['built', 'capped']);
    // No video paid for and left unfinished: the lock holds no job in flight.
    expect(Object.values(lock().assets).filter((entry) => entry.job)).toEqual([]);
  });

  it('a video never built is estimated at the published 180', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('fresh') });
    const plan = parseJson(await build(['--dry-run', '--json']));
    expect(plan.estimate).toEqual({ credits: 360, unknown: [] });
    expect(plan.prices).toEqual([{ kind: 'video', credits: 180, source: 'published', assets: 2, firstAsset: 'vid1' }]);
  });
});
