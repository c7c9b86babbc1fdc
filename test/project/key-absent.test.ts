// A `key` colour that matches no pixel (the mock's sprite-artist draws on dark green, not magenta):
// the build still succeeds and writes the opaque image, and says so for that asset — a warning on
// the terminal, in the item's `warnings` of `build --json` and of the MCP build tool, naming the key
// colour and the border colour the model drew, and that `checks: { alpha: required }` is what fails
// it (which `check` then does: exit 9). Through the real command table against the mock.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { parseJson } from '../support/cli.js';
import { startMcp } from '../support/mcp.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const manifest = (key: string) => `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: hero, prompt: "a knight, 4 frames in a row", post: [${key}, trim, bleed], checks: { alpha: required } }
  - { id: coin, prompt: "a gold coin", post: [trim] }
`;

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });

/** The warning's words for `key` on the mock's dark-green background (its colour read from the image's border). */
const KEY_ABSENT =
  /^key #ff00ff made no pixel transparent \(of 16,384\): the image's border is mostly (#[0-9a-f]{6}), so the background drawn is another colour\. .*Set the key to the colour drawn \(key: '\1'\).* a rule checks: \{ alpha: required \} in assetgen\.yaml is what fails such an image/;

describe('a key colour that matches no pixel', () => {
  it('the build succeeds and warns for that asset (--json, terminal, MCP); check with alpha: required fails it', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': manifest("{ key: '#ff00ff' }") });
    const built = await project.run(['build', '--yes', '--json']);
    expect(built.code, built.stderr).toBe(0);
    const items = parseJson(built).items as { id: string; outcome: string; warnings?: string[] }[];
    const hero = items.find((item) => item.id === 'hero')!;
    expect(hero.outcome).toBe('built');
    expect(hero.warnings).toHaveLength(1);
    expect(hero.warnings![0]).toMatch(KEY_ABSENT);
    // An asset without the problem carries none.
    expect(items.find((item) => item.id === 'coin')!.warnings).toBeUndefined();

    // The gate that fails it in CI.
    const checked = await project.run(['check', '-q']);
    expect(checked.code).toBe(EXIT.checksFailed);
    expect(checked.stderr).toContain('✗ assets/hero.png (hero): alpha required, but every pixel is opaque');

    // People: the steps changed (free re-processing from the kept original), a warning line naming the asset.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest("{ key: { color: '#ff00ff', tolerance: 40 } }") });
    const again = await project.run(['build', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    const line = again.stderr.split('\n').find((text) => text.startsWith('warning: hero: '));
    expect(line?.slice('warning: hero: '.length)).toMatch(KEY_ABSENT);

    // Over MCP: the build tool's item says the same.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest("{ key: { color: '#ff00ff', tolerance: 41 } }") });
    const mcp = await startMcp({ env: project.env(), cwd: project.cwd });
    try {
      const call = await mcp.call('build', { ids: ['hero'] });
      expect(call.result.isError, JSON.stringify(call.json)).toBeFalsy();
      const item = (call.json.items as { id: string; outcome: string; warnings?: string[] }[]).find((entry) => entry.id === 'hero')!;
      expect(item.outcome).toBe('built');
      expect(item.warnings?.[0]).toMatch(KEY_ABSENT);
      expect((call.result.structuredContent as { items: { warnings?: string[] }[] }).items[0].warnings?.[0]).toMatch(KEY_ABSENT);
    } finally {
      await mcp.close();
    }
  });

  it('the key colour the model drew: keyed, no warning', async () => {
    // The mock's background, as the first build's warning named it, is what to key.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest("{ key: '#ff00ff' }") });
    const first = parseJson(await project.run(['build', 'hero', '--yes', '--json']));
    const drawn = KEY_ABSENT.exec(first.items[0].warnings[0])![1];
    writeFiles(project.cwd, { 'assetgen.yaml': manifest(`{ key: '${drawn}' }`) });
    const keyed = await project.run(['build', 'hero', '--json']);
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(parseJson(keyed).items[0]).toMatchObject({ id: 'hero', outcome: 'built' });
    expect(parseJson(keyed).items[0].warnings).toBeUndefined();
    expect((await project.run(['check', 'hero', '-q'])).code).toBe(0);
  });
});
