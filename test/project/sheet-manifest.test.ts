// `sheet:` in the manifest: its options read with every problem at the file:line:col of the value it
// names (exit 2 through the CLI); its `from` checked against the other assets: an unknown id, the
// sheet itself, another sheet, a video, a glob that matches nothing. The frames' names.
import { describe, expect, it } from 'vitest';
import { sheetDataPath, sheetFrames, sheetInputs } from '../../src/pipeline/sheet.js';
import { runCli, TEST_PATH } from '../support/cli.js';
import { manifestOf, tempDir, thrown, writeFiles } from './helpers.js';

const error = (text: string): string => thrown(() => manifestOf(text)).message;
const icons = `defaults: { agent: icon-forge, out: icons/ }
assets:
  - { id: sword, prompt: a sword }
  - { id: shield, prompt: a shield }
  - { id: fx, workflow: explosion, out: fx/ }
  - { id: clip, video: a clip }
`;

describe('sheet in the manifest', () => {
  it('reads the options; `from` may be one text; globs take image and workflow assets in manifest order', () => {
    const manifest = manifestOf(`${icons}  - id: all
    sheet: { from: ["s*", fx], padding: 0, extrude: 0, maxSize: 512, trim: true }
    out: sheets/all.png
  - { id: one, sheet: { from: shield }, out: one.png }
`);
    const all = manifest.assets.find((asset) => asset.id === 'all')!;
    expect(all).toMatchObject({ kind: 'sheet', out: { type: 'file', path: 'sheets/all.png' } });
    expect(all.sheet).toEqual({ from: ['s*', 'fx'], padding: 0, extrude: 0, maxSize: 512, trim: true });
    expect(sheetInputs(all.sheet!.from, manifest.assets)).toEqual(['sword', 'shield', 'fx']);
    expect(manifest.assets.find((asset) => asset.id === 'one')!.sheet).toEqual({ from: ['shield'] });
    expect(sheetDataPath('sheets/all.png')).toBe('sheets/all.json');
  });

  it('names frames by id, and a workflow’s several image files <id>-<n> in path order (videos left out)', () => {
    const files: Record<string, string[]> = { sword: ['icons/sword.png'], fx: ['fx/fx-b.png', 'fx/fx-a.webp', 'fx/fx-c.mp4'] };
    expect(sheetFrames(['sword', 'fx'], (id) => files[id] ?? [])).toEqual([
      { name: 'sword', path: 'icons/sword.png' },
      { name: 'fx-1', path: 'fx/fx-a.webp' },
      { name: 'fx-2', path: 'fx/fx-b.png' },
    ]);
  });

  it('names each bad input at its line and column', () => {
    const sheet = (from: string) => `${icons}  - { id: pack, sheet: { from: ${from} }, out: pack.png }\n`;
    expect(error(sheet('[sword, axe]'))).toBe('assetgen.yaml:7:40: assets[4].sheet.from[1]: unknown asset id "axe"');
    expect(error(sheet('[pack]'))).toBe('assetgen.yaml:7:33: assets[4].sheet.from[0]: a sheet cannot include itself');
    expect(error(sheet('[clip]'))).toBe(
      'assetgen.yaml:7:33: assets[4].sheet.from[0]: "clip" is a video, not an image: a sheet packs image and workflow assets',
    );
    expect(error(sheet('["x*"]'))).toBe('assetgen.yaml:7:33: assets[4].sheet.from[0]: "x*" matches no image or workflow asset');
    expect(error(`${sheet('[sword]')}  - { id: outer, sheet: { from: [pack] }, out: outer.png }\n`)).toBe(
      'assetgen.yaml:8:34: assets[5].sheet.from[0]: "pack" is a sheet: a sheet packs image and workflow assets, not sheets',
    );
    // A glob never takes a sheet (not even the one it is in): `*` here is the icons and the workflow.
    expect(manifestOf(sheet('["*"]')).assets.at(-1)!.sheet!.from).toEqual(['*']);
  });

  it('checks the options and the out', () => {
    expect(error(`${icons}  - { id: p, sheet: { from: [sword], padding: 100 }, out: p.png }\n`)).toBe(
      'assetgen.yaml:7:47: assets[4].sheet.padding: must be a whole number from 0 to 64',
    );
    expect(error(`${icons}  - { id: p, sheet: { from: [sword], maxSize: 1000 }, out: p.png }\n`)).toBe(
      'assetgen.yaml:7:47: assets[4].sheet.maxSize: must be a power of two up to 16384',
    );
    expect(error(`${icons}  - { id: p, sheet: { padding: 1 } , out: p.png }\n`)).toBe(
      'assetgen.yaml:7:21: assets[4].sheet.from: missing: list the assets to pack (ids or globs)',
    );
    expect(error(`${icons}  - { id: p, sheet: { from: [sword] } }\n`)).toBe(
      'assetgen.yaml:7:5: assets[4].out: missing: a sheet needs out: a .png file (its .json goes beside it)',
    );
    expect(error(`${icons}  - { id: p, sheet: { from: [sword] }, out: p.webp }\n`)).toMatch(
      /^assetgen\.yaml:7:45: assets\[4\]\.out: a sheet is written as a \.png file/,
    );
    expect(error(`${icons}  - { id: p, sheet: { from: [sword] }, agent: x, out: p.png }\n`)).toBe(
      'assetgen.yaml:7:40: assets[4].agent: does not apply to a sheet asset',
    );
  });

  it('assetgen build exits 2 on a bad sheet, before anything is sent', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'assetgen.yaml': `${icons}  - { id: pack, sheet: { from: [axe] }, out: pack.png }\n` });
    const result = await runCli(['build', '--dry-run', '--mock'], { cwd: dir, env: { HOME: dir, PATH: TEST_PATH } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('assetgen.yaml:7:33: assets[4].sheet.from[0]: unknown asset id "axe"');
  });
});
