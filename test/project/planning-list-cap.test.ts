// Planning's `workflows list` — made when a workflow's node ids are needed to check who owns which
// output file (here a workflow asset shares its folder with an image whose name starts with its id)
// — is charged when it goes with the API key (the mock: 1 credit). It counts against the cap like
// any other charged call: a cap that cannot afford it (0) has it not made, and the build says what
// planning could not check; made, its charge is within the cap (the assets get what is left), in the
// build's credits and in its summary. With a session configured it goes with the session, free.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { parseJson } from '../support/cli.js';
import { chargingService } from '../support/charging-service.js';
import { KEY, startServer } from '../support/http.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000, faults: { rate: 0 } } });
const spent = async (): Promise<number> => (await project.ledger()).reduce((sum, entry) => sum - entry.amount, 0);

const MANIFEST = [
  'defaults: { agent: sprite-artist, out: assets/ }',
  'assets:',
  '  - { id: hero, workflow: wf_sprite_sheet, out: assets/ }',
  '  - { id: hero-extra, prompt: extra thing }',
  '',
].join('\n');
const PRICES = 'prices: { agents: { sprite-artist: 10 }, workflows: { wf_sprite_sheet: 100 } }\n';

function write(manifest: string): void {
  fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), manifest);
}

describe("planning's charged `workflows list` under a cap", () => {
  it('--max-credits 0 -j 16: not made (a cap of 0 charges nothing), and the build says what planning could not check', async () => {
    write(MANIFEST);
    const result = await project.run(['build', '--yes', '--json', '-j', '16', '--max-credits', '0']);
    expect(await spent()).toBe(0);
    expect(result.code, result.stderr).toBe(8);
    const document = parseJson(result);
    expect(document.credits).toMatchObject({ charged: 0 });
    expect(document.planningCredits).toBeUndefined();
    expect(document.items.map((item: { outcome: string }) => item.outcome)).toEqual(['capped', 'capped']);
    expect(result.stderr).toContain('Planning did not learn the nodes of workflow wf_sprite_sheet');
    expect(result.stderr).toContain('--max-credits 0');
  });

  it('--max-credits 10 -j 16: its 1 credit is within the cap, so the 10-credit image no longer fits; the ledger stops at the cap', async () => {
    write(PRICES + MANIFEST);
    const result = await project.run(['build', '--yes', '--json', '-j', '16', '--max-credits', '10']);
    expect(await spent()).toBeLessThanOrEqual(10);
    expect(await spent()).toBe(1);
    expect(result.code, result.stderr).toBe(8);
    const document = parseJson(result);
    expect(document.credits.charged).toBe(1);
    expect(document.planningCredits).toBe(1);
    expect(document.items).toMatchObject([
      { id: 'hero', outcome: 'capped' },
      { id: 'hero-extra', outcome: 'capped', cap: 'over-cap' },
    ]);
  });

  it('--max-credits 11: the list and the image fit; the summary says what planning was charged beside the assets', async () => {
    write(PRICES + MANIFEST);
    const result = await project.run(['build', '--yes', '-j', '16', '--max-credits', '11']);
    expect(await spent()).toBe(11);
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toContain(
      "Built 1, resumed 0, unchanged 0, held back by the cap 1; 10 credits, and 1 for planning's `workflows list`.",
    );
    expect(result.stderr).toContain('Charged 11 credits; 989 remaining.');
  });

  it('with a session configured the list goes with it, free: nothing of the cap is spent on it', async () => {
    write(PRICES + MANIFEST);
    const env = { ...project.env(), ASSETGEN_SESSION: project.mock.sessionCookie };
    const result = await project.run(['build', '--yes', '--json', '-j', '16', '--max-credits', '10'], { env });
    expect(await spent()).toBe(10);
    expect(result.code, result.stderr).toBe(8);
    const document = parseJson(result);
    expect(document.planningCredits).toBeUndefined();
    expect(document.items).toMatchObject([
      { id: 'hero', outcome: 'capped' },
      { id: 'hero-extra', outcome: 'built' },
    ]);
    expect(result.stderr).not.toContain('Planning did not learn');
  });

  it('--max-credits 1: a first attempt dropped after the service charged it leaves no room for the client’s retry: planning goes on without', async () => {
    write(MANIFEST.replace('wf_sprite_sheet', 'wf_one'));
    // Charges each key-authenticated list as it arrives; the first one's connection is dropped.
    const service = chargingService({ drop: (arrival) => arrival.path === '/api/v1/workflows' && arrival.nth === 1 });
    const server = await startServer(service.handler);
    try {
      const env = { ...project.home.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: KEY };
      const result = await project.run(['build', '--yes', '--json', '-j', '16', '--max-credits', '1'], { env });
      expect(service.spent()).toBe(1);
      // Planning goes on without the nodes (said), and the cap, spent, holds the rest back.
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toContain('Planning did not learn the nodes of workflow wf_one');
      expect(result.stderr).toContain('does not allow asking again');
      // Its charge is not known to assetgen: said, never taken as 0.
      expect(parseJson(result).credits).toMatchObject({ charged: 0, unknownCharges: 1 });
    } finally {
      await server.close();
    }
  });
});
