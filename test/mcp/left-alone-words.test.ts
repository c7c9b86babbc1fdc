// A sheet's and a post-processed output's files a build leaves alone, in each front end's words
// (build-words-2.test.ts has an asset's file, an edited output, an edited sheet and the kept
// original of an output gone): over MCP how to have it made without `--force` (no tool has it), on
// the command line `--force`. The planner writes them (sheet.ts, post.ts, PlanOptions.leftAlone):
// a sheet's data file someone made, a sheet a selection takes along edited by hand, a kept
// original edited when the steps changed, and a post-processed output moved onto someone's file.
// The real `assetgen mcp` (stdio), and the built CLI in process, against the bundled mock.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';
import { useMcpProject } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';

const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: gem-red, prompt: a red gem }
  - { id: gem-blue, prompt: a blue gem }
  - { id: gems, sheet: { from: [gem-red, gem-blue] }, out: assets/gems.png }
  - { id: coin, prompt: a coin }
  - { id: coins, sheet: { from: [coin] }, out: assets/coins.png }
  - { id: shield, prompt: a shield, post: [{ resize: 64x64 }] }
  - { id: helm, prompt: a helm, post: [{ resize: 64x64 }] }
`;

/** After the first build: shield's steps changed, helm's `out` moved onto a file someone made. */
const CHANGED = MANIFEST.replace('a shield, post: [{ resize: 64x64 }]', 'a shield, post: [{ resize: 32x32 }]').replace(
  'a helm, post: [{ resize: 64x64 }]',
  'a helm, post: [{ resize: 64x64 }], out: assets/helm-big.png',
);

type Item = { id: string; outcome?: string; action?: string; reasons?: string[]; why?: string[] };
const itemOf = (json: Record<string, any>, id: string): Item => (json.items as Item[]).find((item) => item.id === id)!;
const reasonsOf = (item: Item): string[] => item.reasons ?? item.why ?? [];

/** A front end's words for asset `id`'s file left alone, by what `--force` would do to it. */
interface Words {
  replace(id: string): string;
  regenerate(id: string): string;
  repack(id: string): string;
}

const inTerminal = (id: string) => `ask the person to run \`assetgen build ${id} --force\` in a terminal (no tool regenerates by force)`;
const MCP_WORDS: Words = {
  replace: (id) => `left alone; to replace it, remove the file or ${inTerminal(id)}`,
  regenerate: (id) => `left alone; to regenerate it, ${inTerminal(id)}`,
  repack: (id) => `left alone; to re-pack it, ${inTerminal(id)}`,
};
const CLI_WORDS: Words = {
  replace: () => 'left alone (--force replaces it)',
  regenerate: () => 'left alone (--force regenerates)',
  repack: () => 'left alone (--force re-packs)',
};

/** The same steps in a project (`cwd`), through a front end's `build` (which gives its JSON document), in its `words`. */
async function leftAloneSteps(
  cwd: string,
  build: (args: { ids?: string[]; dryRun?: boolean }) => Promise<Record<string, any>>,
  words: Words,
) {
  // Someone's data file where the sheet `gems` writes its own, before its first build.
  fs.mkdirSync(path.join(cwd, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(cwd, 'assets', 'gems.json'), '{"drawn": "by hand"}');
  const gems = `assets/gems.json exists and assetgen did not make it: ${words.replace('gems')}`;
  const planned = await build({ dryRun: true });
  expect(itemOf(planned, 'gems')).toMatchObject({ action: 'keep' });
  expect(reasonsOf(itemOf(planned, 'gems'))).toEqual(['not built yet', gems]);

  const built = await build({});
  expect(itemOf(built, 'gems')).toMatchObject({ outcome: 'kept' });
  expect(reasonsOf(itemOf(built, 'gems')).at(-1)).toBe(gems);
  expect(itemOf(built, 'coins')).toMatchObject({ outcome: 'built' });

  // A sheet edited by hand that a selection takes along; a kept original edited, its steps changed;
  // an output moved onto someone's file.
  fs.appendFileSync(path.join(cwd, 'assets', 'coins.png'), 'edited');
  fs.appendFileSync(path.join(cwd, '.assetgen', 'originals', 'shield', 'shield.png'), 'edited');
  fs.writeFileSync(path.join(cwd, 'assets', 'helm-big.png'), 'drawn by hand');
  fs.writeFileSync(path.join(cwd, 'assetgen.yaml'), CHANGED);
  const edited = await build({ ids: ['coin', 'shield', 'helm'], dryRun: true });
  expect(reasonsOf(itemOf(edited, 'coins'))).toEqual([
    'fed by coin',
    'assets/coins.png edited since assetgen wrote it',
    words.repack('coins'),
  ]);
  expect(reasonsOf(itemOf(edited, 'shield'))).toEqual([
    'post changed',
    `.assetgen/originals/shield/shield.png (the kept original) edited since assetgen wrote it: ${words.regenerate('shield')}`,
  ]);
  expect(reasonsOf(itemOf(edited, 'helm'))).toEqual([
    'out changed',
    `assets/helm-big.png exists and assetgen did not make it: ${words.replace('helm')}`,
  ]);
  for (const id of ['coins', 'shield', 'helm']) expect(itemOf(edited, id)).toMatchObject({ action: 'keep' });
}

describe('over MCP', () => {
  const project = useMcpProject(MANIFEST, 100_000);

  it("a sheet's or a post-processed output's file left alone says how to have it made, never `--force`", async () => {
    await leftAloneSteps(
      project.home.cwd,
      async ({ ids, dryRun }) => {
        const { result, json } = await project.mcp.call('build', { ...(ids ? { ids } : {}), ...(dryRun ? { dry_run: true } : {}) });
        expect(result.isError, JSON.stringify(json)).toBeFalsy();
        return json;
      },
      MCP_WORDS,
    );
  });
});

describe('on the command line', () => {
  let mock: MockHandle;
  let own: ReturnType<typeof tempHome>;
  beforeAll(async () => {
    mock = await startMock({ credits: 100_000 });
    own = tempHome();
    fs.writeFileSync(path.join(own.cwd, 'assetgen.yaml'), MANIFEST);
  });
  afterAll(async () => {
    await mock?.close();
    own?.remove();
  });

  it('the same files left alone say `--force`', async () => {
    await leftAloneSteps(
      own.cwd,
      async ({ ids, dryRun }) =>
        parseJson(
          await runInProcess(['build', ...(ids ?? []), ...(dryRun ? ['--dry-run'] : []), '--json'], {
            env: { ...own.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey },
            cwd: own.cwd,
          }),
        ),
      CLI_WORDS,
    );
  });
});
