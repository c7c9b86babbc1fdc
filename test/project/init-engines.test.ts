// `assetgen init --engine …` and the .gitignore lines, through the real command table (dist/,
// in-process: no test here is about the process; a spawn cost ~0.4 s of CPU each) in temp dirs:
// Godot's project.godot and Defold's game.project change by
// exactly the named keys (byte for byte against golden files: comments, other sections and a
// value that spans lines untouched), Unity gets one editor script (golden text, checked for its
// structure: no C# parser is installed) for the manifest's output folders under Assets/ only,
// Phaser and PixiJS a printed snippet; never a .meta or .import file; the .gitignore lines added
// once; without a terminal a change to an existing file takes --yes (on a terminal it is asked:
// test/slow/init-engines-terminal.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesUnder, jsonError, parseJson, runInProcess, tempHome, type CliResult } from '../support/cli.js';
import { STARTER, writeFiles } from './helpers.js';

const fixture = (name: string): string => fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const GODOT = fixture('project.godot');
const GODOT_AFTER = fixture('project.godot.after');
const UNITY_GOLDEN = fixture('AssetgenImport.cs');
const DEFOLD = fixture('game.project');

const GITIGNORE_BLOCK = [
  '# assetgen: never commit these (docs/build.md)',
  '.assetgen.lock.writer',
  '.assetgen.lock.journal',
  'assetgen-report.html',
  '.*.assetgen',
  '.assetgen/cache/',
];

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const init = (args: string[]): Promise<CliResult> => runInProcess(['init', ...args], { env: home.env, cwd: home.cwd });
const read = (file: string): string => fs.readFileSync(path.join(home.cwd, file), 'utf8');
/** Every file under the project, relative, sorted. */
const tree = (): string[] => filesUnder(home.cwd);
/** No engine metadata of a file's own: Unity's .meta and Godot's .import are the engines' to write. */
const expectNoPerFileMetadata = (): void => expect(tree().filter((file) => /\.(meta|import)$/.test(file))).toEqual([]);

describe('assetgen init --engine godot', () => {
  it('changes only the named keys of a real project.godot (byte for byte), comments and other sections kept', async () => {
    writeFiles(home.cwd, { 'project.godot': GODOT });
    const result = await init(['--engine', 'godot', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(read('project.godot')).toBe(GODOT_AFTER);
    // The diff shown is the change made.
    expect(result.stderr).toContain(
      [
        '  @@ -35,4 +35,5 @@',
        '   renderer/rendering_method="gl_compatibility"',
        '   textures/vram_compression/import_etc2_astc=true',
        '  +textures/canvas_textures/default_texture_filter=0',
        '   ',
        '   [input]',
      ].join('\n'),
    );
    expect(result.stderr).toContain('  +"mipmaps/generate": false,');
    expect(result.stdout).toBe('assetgen.yaml\n.gitignore\nproject.godot\n');
    expect(tree()).toEqual(['.gitignore', 'assetgen.yaml', 'project.godot']);
    expectNoPerFileMetadata();

    // Run again: nothing to do, nothing written.
    const again = await init(['--engine', 'godot']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('unchanged project.godot');
    expect(again.stderr).toContain('Already set up: nothing to write.');
    expect(read('project.godot')).toBe(GODOT_AFTER);
  });

  it('sets keys inside an existing [importer_defaults] texture dictionary, keeping its other keys and CRLF line ends', async () => {
    const before = [
      'config_version=5',
      '',
      '[importer_defaults]',
      '',
      'texture={',
      '"compress/mode": 2,',
      '"svg/scale": 4.0',
      '}',
      'animation_library={',
      '&"nodes/root_scale": 1000.0',
      '}',
      '',
      '[rendering]',
      '',
      'textures/canvas_textures/default_texture_filter=1',
      '',
    ].join('\r\n');
    writeFiles(home.cwd, { 'project.godot': before, 'assetgen.yaml': STARTER });
    const result = await init(['--engine', 'godot', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const expected = before
      .replace('"compress/mode": 2,', '"compress/mode": 0,')
      .replace('"svg/scale": 4.0\r\n', '"svg/scale": 4.0,\r\n"mipmaps/generate": false,\r\n"detect_3d/compress_to": 0\r\n')
      .replace('default_texture_filter=1', 'default_texture_filter=0');
    expect(read('project.godot')).toBe(expected);
    expect(parseJson(result)).toMatchObject({
      engine: 'godot',
      created: false,
      changed: true,
      files: [
        { path: '.gitignore', action: 'create' },
        { path: 'project.godot', action: 'update' },
      ],
    });
  });

  it('refuses a Godot 3 project and a folder without project.godot (exit 2), writing nothing', async () => {
    writeFiles(home.cwd, { 'project.godot': 'config_version=4\n\n[application]\n' });
    const old = await init(['--engine', 'godot', '--yes']);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('project.godot is a Godot 3 project (config_version=4)');
    expect(tree()).toEqual(['project.godot']);
    fs.rmSync(path.join(home.cwd, 'project.godot'));
    const none = await init(['--engine', 'godot', '--yes']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No project.godot in');
    expect(tree()).toEqual([]);
  });

  it('without a terminal, a change to a file already there takes --yes (exit 2, nothing written); --dry-run shows it', async () => {
    writeFiles(home.cwd, { 'project.godot': GODOT });
    const refused = await init(['--engine', 'godot']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('assetgen init would change project.godot (the diff above); there is no terminal to ask on');
    expect(refused.stderr).toContain('+textures/canvas_textures/default_texture_filter=0');
    expect(tree()).toEqual(['project.godot']);
    expect(jsonError(await init(['--engine', 'godot', '--json']))).toMatchObject({ code: 'usage', exitCode: 2 });

    const dry = await init(['--engine', 'godot', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(parseJson(dry)).toMatchObject({ dryRun: true, changed: false, created: false });
    expect(tree()).toEqual(['project.godot']);
    expect(read('project.godot')).toBe(GODOT);
  });

  it('never writes through a link: a project.godot that is a symbolic link is refused (exit 2)', async () => {
    const outside = path.join(home.home, 'elsewhere.godot');
    fs.writeFileSync(outside, GODOT);
    fs.symlinkSync(outside, path.join(home.cwd, 'project.godot'));
    const result = await init(['--engine', 'godot', '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('project.godot is a symbolic link');
    expect(fs.readFileSync(outside, 'utf8')).toBe(GODOT);
  });
});

describe('assetgen init --engine unity', () => {
  const MANIFEST = `defaults: { agent: sprite-artist, out: Assets/Art/Generated/ }
assets:
  - id: sword
    prompt: a sword
  - id: hero
    prompt: a hero
    out: Assets/Art/Heroes/hero.png
  - id: banner
    prompt: a banner for the web page
    out: web/banner.png
`;

  it('writes one editor script (the golden text) for the output folders under Assets/, and no .meta', async () => {
    writeFiles(home.cwd, { 'assetgen.yaml': MANIFEST, 'Assets/Art/own.png': 'the user’s own texture' });
    const result = await init(['--engine', 'unity', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const script = read('Assets/Editor/AssetgenImport.cs');
    expect(script).toBe(UNITY_GOLDEN);
    expect(result.stderr).toContain('Unity does not import web (outside Assets/)');
    expect(parseJson(result).files).toEqual([
      { path: '.gitignore', action: 'create', purpose: expect.any(String) },
      {
        path: 'Assets/Editor/AssetgenImport.cs',
        action: 'create',
        purpose: expect.stringContaining('Assets/Art/Generated, Assets/Art/Heroes'),
      },
    ]);
    expect(tree()).toEqual(['.gitignore', 'Assets/Art/own.png', 'Assets/Editor/AssetgenImport.cs', 'assetgen.yaml']);
    expectNoPerFileMetadata();
  });

  it('the script, by its structure (no C# parser is installed): one AssetPostprocessor, first imports only, exactly the output folders', () => {
    const script = UNITY_GOLDEN;
    // Balanced braces and parentheses outside strings and comments, every statement line ended.
    const code = script
      .split('\n')
      .map((line) => line.replace(/\/\/.*$/, ''))
      .join('\n')
      .replace(/"(?:[^"\\]|\\.)*"/g, '""')
      .replace(/'(?:[^'\\]|\\.)'/g, "''");
    for (const [open, close] of [
      ['{', '}'],
      ['(', ')'],
      ['[', ']'],
    ]) {
      let depth = 0;
      for (const char of code) {
        depth += char === open ? 1 : char === close ? -1 : 0;
        expect(depth).toBeGreaterThanOrEqual(0);
      }
      expect(depth, `${open}${close}`).toBe(0);
    }
    expect(code.match(/^using [\w.]+;$/gm)).toEqual(['using System;', 'using UnityEditor;', 'using UnityEngine;']);
    expect(code).toMatch(/^public class AssetgenImport : AssetPostprocessor\n\{$/m);
    expect(code).toMatch(/^ {4}void OnPreprocessTexture\(\)\n {4}\{$/m);
    // The first statement returns unless this is the first import, the second unless in an output folder.
    const body = script.slice(script.indexOf('void OnPreprocessTexture()'));
    const statements = body
      .slice(body.indexOf('{') + 1, body.indexOf('\n    }'))
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    expect(statements).toEqual([
      'if (!assetImporter.importSettingsMissing) return;',
      "string folder = System.IO.Path.GetDirectoryName(assetPath).Replace('\\\\', '/');",
      'if (Array.IndexOf(OutputFolders, folder) < 0) return;',
      'var importer = (TextureImporter)assetImporter;',
      'importer.filterMode = FilterMode.Point;',
      'importer.textureCompression = TextureImporterCompression.Uncompressed;',
      'importer.mipmapEnabled = false;',
    ]);
    expect([...script.matchAll(/^ {8}("[^"]*"),$/gm)].map((match) => JSON.parse(match[1]!) as string)).toEqual([
      'Assets/Art/Generated',
      'Assets/Art/Heroes',
    ]);
  });

  it('updates its own script when the output folders change (the diff shown, --yes without a terminal); never a user’s file of that name', async () => {
    writeFiles(home.cwd, { 'assetgen.yaml': MANIFEST, 'Assets/.keep': '' });
    expect((await init(['--engine', 'unity'])).code).toBe(0);
    writeFiles(home.cwd, { 'assetgen.yaml': MANIFEST.replace('Assets/Art/Heroes/hero.png', 'Assets/Art/Characters/hero.png') });
    const refused = await init(['--engine', 'unity']);
    expect(refused.code).toBe(2);
    const updated = await init(['--engine', 'unity', '--yes']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stderr).toContain('  -        "Assets/Art/Heroes",');
    expect(updated.stderr).toContain('  +        "Assets/Art/Characters",');
    expect(read('Assets/Editor/AssetgenImport.cs')).toBe(
      UNITY_GOLDEN.replace(
        '        "Assets/Art/Generated",\n        "Assets/Art/Heroes",\n',
        '        "Assets/Art/Characters",\n        "Assets/Art/Generated",\n',
      ),
    );

    writeFiles(home.cwd, { 'Assets/Editor/AssetgenImport.cs': '// mine\n' });
    const mine = await init(['--engine', 'unity', '--yes']);
    expect(mine.code).toBe(2);
    expect(mine.stderr).toContain('was not written by assetgen');
    expect(read('Assets/Editor/AssetgenImport.cs')).toBe('// mine\n');
  });

  it('refuses a folder without Assets/, and a manifest with no output folder under Assets/ (exit 2)', async () => {
    writeFiles(home.cwd, { 'assetgen.yaml': MANIFEST });
    const noAssets = await init(['--engine', 'unity', '--yes']);
    expect(noAssets.code).toBe(2);
    expect(noAssets.stderr).toContain('No Assets/ folder in');
    // The starter's outputs go to assets/ (lower case): Unity would not import them.
    fs.rmSync(path.join(home.cwd, 'assetgen.yaml'));
    fs.mkdirSync(path.join(home.cwd, 'Assets'));
    const starter = await init(['--engine', 'unity', '--yes']);
    expect(starter.code).toBe(2);
    expect(starter.stderr).toContain('No output folder of the manifest is under Assets/ (assets/icons)');
    // The hint works when followed literally: no manifest is written, and the starter's assets have an `out` of their own.
    expect(starter.stderr).toContain('No manifest yet? Run `assetgen init` first');
    expect(starter.stderr).toContain("point every asset's `out`, and `defaults.out`, at a folder under Assets/");
    expect(tree()).toEqual([]);
    // Followed: the starter written, every `out` pointed under Assets/, and the set-up goes through.
    expect((await init([])).code).toBe(0);
    fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), read('assetgen.yaml').replaceAll('out: assets/', 'out: Assets/Art/'));
    const followed = await init(['--engine', 'unity', '--yes']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(read('Assets/Editor/AssetgenImport.cs')).toContain('"Assets/Art/icons",');
  });
});

describe('assetgen init --engine defold', () => {
  it('sets the two filter keys of game.project in place, every other byte kept', async () => {
    writeFiles(home.cwd, { 'game.project': DEFOLD });
    const result = await init(['--engine', 'defold', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(read('game.project')).toBe(
      DEFOLD.replace(
        'default_texture_min_filter = linear\nverify_graphics_calls = 0\n',
        'default_texture_min_filter = nearest\nverify_graphics_calls = 0\ndefault_texture_mag_filter = nearest\n',
      ),
    );
    expectNoPerFileMetadata();
    const again = await init(['--engine', 'defold']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('unchanged game.project');
  });
});

describe('assetgen init --engine phaser|pixi', () => {
  it('prints the line to add and writes no engine file', async () => {
    const phaser = await init(['--engine', 'phaser']);
    expect(phaser.code, phaser.stderr).toBe(0);
    // The code to paste is the result: on stdout, after the files written (test/commands/init-snippet-quiet.test.ts).
    expect(phaser.stdout).toContain('  pixelArt: true,');
    expect(phaser.stderr).not.toContain('pixelArt');
    expect(tree()).toEqual(['.gitignore', 'assetgen.yaml']);
    const pixi = await init(['--engine', 'pixi', '--json']);
    expect(pixi.code, pixi.stderr).toBe(0);
    expect(parseJson(pixi).snippet.code).toContain("TextureStyle.defaultOptions.scaleMode = 'nearest';");
    expect(parseJson(pixi).changed).toBe(false);
    expect(tree()).toEqual(['.gitignore', 'assetgen.yaml']);
  });

  it('an unknown engine is a usage error (exit 2)', async () => {
    const result = await init(['--engine', 'unreal']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Allowed choices are godot, unity, defold, phaser, pixi');
  });
});

describe('assetgen init and .gitignore', () => {
  it('adds the lines docs/build.md asks for once, after the user’s own (CRLF kept, a missing final newline added)', async () => {
    const own = 'node_modules/\r\n/assetgen-report.html\r\ndist/';
    writeFiles(home.cwd, { '.gitignore': own, 'project.godot': GODOT, 'assetgen.yaml': STARTER });
    const result = await init(['--engine', 'godot', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    // The report's line was there already (anchored): not added again.
    const expected = `${own}\r\n${GITIGNORE_BLOCK.filter((line) => line !== 'assetgen-report.html').join('\r\n')}\r\n`;
    expect(read('.gitignore')).toBe(expected);
    expect((await init(['--engine', 'godot'])).code).toBe(0);
    expect(read('.gitignore')).toBe(expected);
  });

  it('plain init makes the starter and a .gitignore; a second plain init stops at the manifest (exit 2)', async () => {
    const result = await init([]);
    expect(result.code, result.stderr).toBe(0);
    expect(read('.gitignore')).toBe(`${GITIGNORE_BLOCK.join('\n')}\n`);
    expect(read('assetgen.yaml')).toBe(STARTER);
    expect(result.stderr).toContain('Provenance sidecars (with `provenance: sidecar` in the manifest) go in .assetgen/provenance/');
    const again = await init([]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('assetgen.yaml already exists');
  });

  it("plain init without a terminal in a repository with a .gitignore: appends the lines, keeps the user's, asks nothing", async () => {
    writeFiles(home.cwd, { '.gitignore': 'node_modules/\n' });
    const result = await init([]);
    expect(result.code, result.stderr).toBe(0);
    expect(read('.gitignore')).toBe(`node_modules/\n${GITIGNORE_BLOCK.join('\n')}\n`);
    expect(read('assetgen.yaml')).toBe(STARTER);
  });

  it('names where the manifest puts provenance sidecars', async () => {
    writeFiles(home.cwd, { 'assetgen.yaml': `provenance: { sidecars: beside }\n${STARTER.split('\n').slice(6).join('\n')}` });
    const result = await init(['--engine', 'phaser']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Provenance sidecars go beside the outputs, where they ship with the game.');
  });
});
