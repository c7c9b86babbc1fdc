// Someone's file where a first build would save an asset whose `out` is a folder (`<dir>/<id>.png`)
// is left alone, as at a single-file `out`: kept, named in the plan, nothing paid; --force replaces it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 1_000 }, config: { credits: 1_000 } });
const spent = async (): Promise<number> => -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);

describe('a hand-made file where a folder out would save', () => {
  it('is kept by the dry run and the build (no charge); --force replaces it', async () => {
    fs.writeFileSync(
      path.join(project.cwd, 'assetgen.yaml'),
      'defaults: { agent: icon-forge }\nassets:\n  - { id: potion, prompt: red potion icon, out: assets/icons/ }\n  - { id: gem, prompt: a gem, out: assets/icons/ }\n',
    );
    fs.mkdirSync(path.join(project.cwd, 'assets/icons'), { recursive: true });
    fs.writeFileSync(path.join(project.cwd, 'assets/icons/potion.webp'), 'handmade');
    const plan = parseJson(await project.run(['build', '--dry-run', '--json']));
    const potion = (plan.items as { id: string; action: string; reasons: string[] }[]).find((item) => item.id === 'potion');
    expect(potion).toMatchObject({ action: 'keep' });
    expect(potion!.reasons.at(-1)).toBe('assets/icons/potion.webp exists and assetgen did not make it: left alone (--force replaces it)');

    const before = await spent();
    const built = await project.run(['build', '--yes', '--json']);
    expect(built.code, built.stderr).toBe(0);
    expect(fs.readFileSync(path.join(project.cwd, 'assets/icons/potion.webp'), 'utf8')).toBe('handmade');
    expect(await spent()).toBe(before + 10); // the gem only

    const forced = await project.run(['build', 'potion', '--force', '--yes', '--json']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await spent()).toBe(before + 20);
  });
});
