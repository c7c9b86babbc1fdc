// The edits `assetgen init --engine` makes to engine project files, on their edge cases (the CLI
// test, test/project/init-engines.test.ts, covers real files end to end): a file without a final
// line break, an empty dictionary, a key that only looks like one inside a string, the diff's hunks.
import { describe, expect, it } from 'vitest';
import { defoldSplices } from '../../src/engines/defold.js';
import { gitignoreSplices } from '../../src/engines/gitignore.js';
import { godotSplices } from '../../src/engines/godot.js';
import { scanIni } from '../../src/engines/ini.js';
import { applySplices, renderDiff } from '../../src/engines/text-edit.js';

const godot = (text: string): string => applySplices(text, godotSplices(text));
const TEXTURE = 'texture={\n"compress/mode": 0,\n"mipmaps/generate": false,\n"detect_3d/compress_to": 0\n}\n';

describe('project.godot', () => {
  it('without a final line break: one blank line between the sections it adds', () => {
    expect(godot('config_version=5\n\n[rendering]\n\nfoo=1')).toBe(
      `config_version=5\n\n[rendering]\n\nfoo=1\ntextures/canvas_textures/default_texture_filter=0\n\n[importer_defaults]\n\n${TEXTURE}`,
    );
    expect(godot('config_version=5')).toBe(
      `config_version=5\n\n[rendering]\n\ntextures/canvas_textures/default_texture_filter=0\n\n[importer_defaults]\n\n${TEXTURE}`,
    );
  });

  it('an empty texture dictionary is filled; a second pass changes nothing', () => {
    const once = godot('config_version=5\n[importer_defaults]\ntexture={}\n[rendering]\n');
    expect(once).toBe(`config_version=5\n[importer_defaults]\n${TEXTURE}[rendering]\ntextures/canvas_textures/default_texture_filter=0\n`);
    expect(godotSplices(once)).toEqual([]);
  });

  it('a line inside a multi-line string is not a section or a key', () => {
    const text =
      'config_version=5\n[application]\nconfig/description="one\n[rendering]\ntextures/canvas_textures/default_texture_filter=1"\n';
    const sections = scanIni(text, { assign: '=', blankAfterHeader: true, multiline: true });
    expect(sections.map((section) => section.name)).toEqual([null, 'application']);
    expect(godot(text)).toBe(
      `${text}\n[rendering]\n\ntextures/canvas_textures/default_texture_filter=0\n\n[importer_defaults]\n\n${TEXTURE}`,
    );
  });

  it('a texture= that is not a dictionary is refused, naming the editor’s way out', () => {
    expect(() => godotSplices('config_version=5\n[importer_defaults]\ntexture=5\n')).toThrow(/not a dictionary as Godot writes one/);
  });
});

describe('game.project', () => {
  it('a [graphics] section added after a file without a final line break, a blank line between', () => {
    const text = '[project]\ntitle = X';
    expect(applySplices(text, defoldSplices(text))).toBe(
      '[project]\ntitle = X\n\n[graphics]\ndefault_texture_min_filter = nearest\ndefault_texture_mag_filter = nearest\n',
    );
  });
});

describe('.gitignore', () => {
  it('adds only the missing lines, the header once', () => {
    const lines = ['a', 'b'];
    const first = applySplices('x\n', gitignoreSplices('x\n', lines));
    expect(first).toBe('x\n# assetgen: never commit these (docs/build.md)\na\nb\n');
    const edited = first.replace('a\n', '');
    expect(applySplices(edited, gitignoreSplices(edited, lines))).toBe('x\n# assetgen: never commit these (docs/build.md)\nb\na\n');
    expect(gitignoreSplices(first, lines)).toEqual([]);
  });
});

describe('the diff', () => {
  it('one hunk per distant change, with two lines of context and the numbers of both sides', () => {
    const before = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', ''].join('\n');
    const splices = [
      { start: before.indexOf('2\n'), end: before.indexOf('2\n') + 1, text: 'two' },
      { start: before.length, end: before.length, text: '11\n12\n' },
    ];
    expect(renderDiff(before, splices)).toEqual([
      '@@ -1,4 +1,4 @@',
      ' 1',
      '-2',
      '+two',
      ' 3',
      ' 4',
      '@@ -9,2 +9,4 @@',
      ' 9',
      ' 10',
      '+11',
      '+12',
    ]);
    expect(renderDiff(null, [{ start: 0, end: 0, text: 'a\nb\n' }])).toEqual(['+a', '+b']);
  });
});
