// `build <id> --more K` on an asset whose output was edited by hand: the build leaves the asset
// alone (its output is the reader's now), and says so for the takes too — never a request dropped
// without a word (an agent asked for takes and was told nothing). Nothing is charged (the ledger).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({
  config: { faults: { rate: 0 } },
  files: { 'assetgen.yaml': 'assets:\n  - { id: sword, prompt: a sword, agent: sprite-artist, out: assets/sword.png }\n' },
});

describe('--more on an asset left alone (its output edited by hand)', () => {
  it('the dry run and the build say no takes are made, and why; nothing charged', async () => {
    const first = await project.run(['build', '--yes']);
    expect(first.code, first.stderr).toBe(0);
    fs.appendFileSync(path.join(project.cwd, 'assets/sword.png'), 'edited');
    const before = (await project.ledger()).length;
    const dry = await project.run(['build', 'sword', '--more', '2', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const [item] = parseJson(dry).items as { action: string; reasons?: string[]; why?: string[] }[];
    expect(item!.action).toBe('keep');
    expect(JSON.stringify(item)).toContain('--more 2: no takes made while it is left alone');
    const built = await project.run(['build', 'sword', '--more', '2', '--yes']);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr + built.stdout).toContain('--more 2: no takes made while it is left alone');
    expect((await project.ledger()).length).toBe(before);
  });
});
