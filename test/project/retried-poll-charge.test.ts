// A build's video polled with an API key, against a service that charges each poll as it arrives
// and drops the first one's connection: the client's retry is answered (charged 1), and the dropped
// attempt's charge is not known to assetgen. Like a poll stopped while out: the lock's cost of the
// asset is `null` (not known, never a figure short of the ledger), `--json`'s credits say
// `unknownCharges`, and --max-credits counts a poll's price for it, so the ledger never passes the cap.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, runInProcess } from '../support/cli.js';
import { chargingService, dropFirstPoll, MP4, VIDEO_PRICE } from '../support/charging-service.js';
import { useScriptedService } from '../support/http.js';

const scripted = useScriptedService(runInProcess);

/** A project with one video asset, built against a service that drops the first poll (charged); the job succeeds on the third. */
async function build(extra: string[] = []) {
  fs.writeFileSync(path.join(scripted.home.cwd, 'assetgen.yaml'), 'assets:\n  - { id: torch, video: a torch, out: assets/fx/ }\n');
  const service = chargingService({ drop: dropFirstPoll, videoDoneAt: 3 });
  const result = await scripted.against(service.handler, ['build', '--yes', '--timeout', '20s', '--json', ...extra]);
  const lock = readLock(path.join(scripted.home.cwd, 'assetgen.lock'));
  return { service, result, document: parseJson(result), entry: lock.assets.torch! };
}

describe('a build whose poll was retried after its first attempt was dropped (charged)', () => {
  it('records the asset’s cost as not known (null), and --json says unknownCharges 1 beside the known 182', async () => {
    const { service, result, document, entry } = await build();
    expect(result.code, result.stderr).toBe(0);
    // Submission, the dropped poll, its retry, the poll that saw the job done.
    expect(service.ledger.map((charge) => charge.amount)).toEqual([VIDEO_PRICE, 1, 1, 1]);
    expect(service.spent()).toBe(183);
    expect(document.credits).toEqual({ charged: 182, refunded: 0, balance: 817, unknownCharges: 1 });
    expect(document.items).toMatchObject([{ id: 'torch', outcome: 'built', credits: 182, cost: null }]);
    expect(fs.readFileSync(path.join(scripted.home.cwd, 'assets', 'fx', 'torch.mp4'))).toEqual(MP4);
    // Not known: 182 would be short of the ledger's 183.
    expect(entry.credits).toBeNull();
  });

  it('counts a poll’s price for it against --max-credits: the ledger stops at the cap (182), the job kept', async () => {
    const { service, result, document, entry } = await build(['--max-credits', '182']);
    // The next poll would pass the cap: 180 + the lost poll + its retry = 182 already.
    expect(service.spent()).toBe(182);
    expect(result.code, result.stderr).toBe(8);
    expect(document.items).toMatchObject([{ id: 'torch', outcome: 'capped' }]);
    expect(document.credits).toMatchObject({ charged: 181, unknownCharges: 1 });
    // The job is kept for the next build, its cost not known.
    expect(entry.job).toMatchObject({ jobId: 'vid_1' });
    expect(entry.job!.credits ?? null).toBeNull();
  });

  it('asks the cap before the client retries a poll: at --max-credits 181 the dropped poll (maybe charged) leaves no room for its retry', async () => {
    const { service, result, document, entry } = await build(['--max-credits', '181']);
    // 180 + the dropped poll = 181: a retry would pass the cap, so the poll ends with no answer.
    expect(service.ledger.map((charge) => charge.amount)).toEqual([VIDEO_PRICE, 1]);
    expect(service.spent()).toBe(181);
    // The cap ended it, not the service: capped (exit 8, the resume advice), as a poll refused before sending is.
    expect(result.code, result.stderr).toBe(8);
    expect(document.items).toMatchObject([{ id: 'torch', outcome: 'capped' }]);
    expect(document.credits).toMatchObject({ charged: 180, unknownCharges: 1 });
    expect(entry.job).toMatchObject({ jobId: 'vid_1' });
    expect(entry.job!.credits ?? null).toBeNull();
  });
});
