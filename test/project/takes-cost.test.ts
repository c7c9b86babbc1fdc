// `cost` in build --json is the asset's whole cost as the lock records it: for an asset with
// takes, every take's, those paid in earlier builds too (not only this build's calls).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000 } });

describe('cost of an asset with takes', () => {
  it('after --more, the lock’s and the ledger’s figure', async () => {
    fs.writeFileSync(
      path.join(project.cwd, 'assetgen.yaml'),
      'defaults: { agent: icon-forge, out: assets/ }\nassets:\n  - { id: sword, prompt: a costed sword, variants: 3 }\n',
    );
    const first = parseJson(await project.run(['build', '--yes', '--json']));
    expect(first.items[0]).toMatchObject({ id: 'sword', credits: 30, cost: 30 });
    const more = parseJson(await project.run(['build', 'sword', '--more', '2', '--yes', '--json']));
    const spent = -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);
    expect(spent).toBe(50);
    expect(more.items[0]).toMatchObject({ id: 'sword', credits: 20, cost: 50 });
    expect(readLock(path.join(project.cwd, 'assetgen.lock')).assets.sword!.credits).toBe(50);
  });
});
