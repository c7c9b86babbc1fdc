// A paid job still in flight (held back by the cap at a poll) is reported with what the lock says
// it has paid so far, not as 0: the report's figures are the service's answers, as the lock keeps them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000, videoSteps: 3, videoPollAfterMs: 0 } });

describe('report of a paid job in flight', () => {
  it('says what it has paid so far (the lock’s and the ledger’s figure)', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), 'assets:\n  - { id: torch, video: a reported torch, out: assets/fx/ }\n');
    const capped = await project.run(['build', '--yes', '--max-credits', '181', '--json']);
    expect(capped.code, capped.stderr).toBe(8);
    const spent = -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);
    expect(spent).toBe(181);
    const report = parseJson(await project.run(['report', '--json']));
    const torch = (report.items as { id: string; credits: number | null; creditsWhen?: string }[]).find((card) => card.id === 'torch');
    expect(torch).toMatchObject({ credits: spent, creditsWhen: 'paid so far (job in flight)' });
    expect(report.totals.credits).toBe(spent);
  });
});
