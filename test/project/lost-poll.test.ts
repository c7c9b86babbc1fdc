// A poll whose answer is cut after its headers said it was charged (each key-authenticated poll
// is): the service took the credit, and asking again is a new charge. The build counts it as an
// answer and asks its budget before the next poll, so the ledger never passes --max-credits and
// the summary, --json and the lock say what the ledger says.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000 } });

describe('a charged poll answer lost on the way', () => {
  it('is counted against --max-credits: the ledger stops at the cap, and every figure is the ledger', async () => {
    // wf_sprite_sheet: 3 nodes, 15 credits to start, 1 per poll; 17 leaves room for two polls.
    fs.writeFileSync(
      path.join(project.cwd, 'assetgen.yaml'),
      'prices: { workflows: { wf_sprite_sheet: 15 } }\nassets:\n  - { id: knight, workflow: wf_sprite_sheet, out: sprites/ }\n',
    );
    await project.mock.hold(['getRun']);
    const build = project.run(['build', '--yes', '--max-credits', '17', '--json']);
    await until('the first poll held', async () => (await project.mock.state()).held >= 1);
    // From the first poll on, every answer is cut after its headers (charged, then lost).
    await project.mock.config({ faults: { rate: 1, kinds: ['truncate'] } });
    await project.mock.hold([]);
    const result = await build;
    await project.mock.config({ faults: { rate: 0, kinds: ['truncate'] } });

    const spent = -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);
    expect(spent).toBe(17);
    expect(result.code, result.stderr).toBe(8);
    const document = parseJson(result);
    expect(document.credits.charged).toBe(spent);
    expect(document.items).toMatchObject([{ id: 'knight', outcome: 'capped' }]);
    const entry = readLock(path.join(project.cwd, 'assetgen.lock')).assets.knight!;
    // The job is kept for the next build (the cap stopped it, not a failure), its cost the ledger's.
    expect(entry.job).toMatchObject({ jobId: expect.stringMatching(/^run_/), credits: spent });
  });
});
