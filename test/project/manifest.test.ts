// The manifest: found like package.json, parsed as YAML or JSON, and every problem reported as
// file:line:col with its field, as a usage error (exit 2).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestError } from '../../src/pipeline/errors.js';
import { CLI } from '../../src/cli/front-end.js';
import { findManifest, loadManifest, locateManifest } from '../../src/pipeline/manifest.js';
import { PipelineError } from '../../src/pipeline/errors.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { EXAMPLE, manifestOf, STARTER, tempDir, thrown, writeFiles } from './helpers.js';

/** The issue lines a manifest text produces. */
const issues = (text: string): string[] => thrown(() => manifestOf(text)).message.split('\n');

describe('parseManifest', () => {
  it('reads the example of the issue: kinds, defaults, outputs', () => {
    const { assets, root } = manifestOf(EXAMPLE);
    expect(root).toBe('/project');
    expect(assets.map(({ position: _, ...asset }) => asset)).toEqual([
      {
        id: 'sword',
        kind: 'image',
        prompt: 'rusty sword icon, 32x32 pixel art',
        agent: 'icon-forge',
        out: { type: 'file', path: 'assets/icons/sword.png' },
      },
      {
        id: 'hero',
        kind: 'workflow',
        workflow: 'wf_sprite_sheet',
        set: { character: 'a dwarf miner' },
        out: { type: 'folder', dir: 'assets/sprites/hero' },
      },
      { id: 'torch', kind: 'video', prompt: 'torch flickering on a dungeon wall', out: { type: 'folder', dir: 'assets/fx' } },
    ]);
    expect(assets[1]!.position).toEqual({ line: 8, col: 5 });
  });

  it('applies defaults: agent to images only, out as a folder with or without a slash', () => {
    const { assets } = manifestOf(
      'defaults: { agent: tile-smith, out: art }\nassets:\n  - { id: floor, prompt: moss }\n  - { id: clip, video: waves }\n',
    );
    expect(assets[0]).toMatchObject({ agent: 'tile-smith', out: { type: 'folder', dir: 'art' } });
    expect(assets[1]!.agent).toBeUndefined();
    expect(manifestOf('assets:\n  - { id: a, prompt: p, agent: x }\n').assets[0]!.out).toEqual({ type: 'folder', dir: '.' });
  });

  it('reads JSON too, and the starter template', () => {
    const json = JSON.stringify({ assets: [{ id: 'coin', prompt: 'gold coin', agent: 'icon-forge', out: 'icons\\coin.png' }] }, null, 2);
    expect(manifestOf(json).assets[0]).toMatchObject({ id: 'coin', out: { type: 'file', path: 'icons/coin.png' } });
    expect(manifestOf(STARTER).assets.map((asset) => asset.id)).toEqual(['sword']);
  });

  it('reports bad YAML at its position', () => {
    expect(issues('assets:\n  - id: a\n    prompt: [unclosed\n')[0]).toMatch(/^assetgen\.yaml:\d+:\d+: /);
    expect(issues('assets:\n  - id: a\n    id: b\n    prompt: p\n')).toEqual(['assetgen.yaml:3:5: id: appears twice in one mapping']);
    // A quote never closed: at the quote that opened it (the parser stops at the end of the file).
    const unclosed = 'assets:\n  - id: a\n    prompt: "un \\"closed\n  - id: b\n    prompt: fine\n';
    expect(issues(unclosed)[0]).toMatch(/^assetgen\.yaml:3:13: Missing closing "quote/);
    expect(issues("assets:\n  - id: a\n    prompt: 'it''s open\n")[0]).toMatch(/^assetgen\.yaml:3:13: Missing closing 'quote/);
  });

  it('names unknown fields, duplicate ids and missing prompts with file:line:col and the field', () => {
    const text = [
      'defaults: { agent: sprite-artist, colour: red }', // 1
      'assets:', // 2
      '  - id: sword', // 3
      '    promt: rusty sword', // 4
      '  - id: sword', // 5
      '    prompt: another', // 6
      '  - id: hero', // 7
      '    out: assets/', // 8
    ].join('\n');
    expect(issues(text)).toEqual([
      'assetgen.yaml:1:35: defaults.colour: unknown field (expected one of: agent, out, style, post, variants, checks)',
      'assetgen.yaml:3:5: assets[0].prompt: missing prompt: give one of prompt (image), workflow, video or sheet',
      'assetgen.yaml:4:5: assets[0].promt: unknown field (expected one of: id, prompt, workflow, video, agent, set, out, duration, aspectRatio, style, matrix, post, variants, sheet, tile, checks)',
      'assetgen.yaml:5:9: assets[1].id: duplicate id "sword" (also assets[0]; case does not count)',
      'assetgen.yaml:7:5: assets[2].prompt: missing prompt: give one of prompt (image), workflow, video or sheet',
    ]);
  });

  it('refuses outputs outside the project, absolute ones, and files that are not media (the manifest or lock, say)', () => {
    const out = (value: string): string => issues(`assets:\n  - id: a\n    prompt: p\n    agent: x\n    out: ${value}\n`)[0]!;
    expect(out('../elsewhere/')).toBe("assetgen.yaml:5:10: assets[0].out: ../elsewhere/ is outside the project (the manifest's directory)");
    expect(out('assets/../../x.png')).toContain('is outside the project');
    expect(out('/tmp/x.png')).toContain('is an absolute path');
    expect(out('C:\\art\\x.png')).toContain('is an absolute path');
    expect(out('assets/sword')).toContain('end a folder with "/"');
    expect(out('clip.mp4')).toContain('.mp4 is not an image file');
    expect(issues('defaults: { out: ../up }\nassets: []\n')[0]).toContain('defaults.out: ../up/ is outside the project');
    expect(issues('assets:\n  - { id: a, video: v, out: assetgen.lock }\n')[0]).toContain('give the file a media extension');
  });

  it('checks each field against the kind of asset', () => {
    expect(issues('assets:\n  - { id: a, prompt: p }\n')).toEqual([
      'assetgen.yaml:2:5: assets[0].agent: missing: set agent here or defaults.agent',
    ]);
    expect(issues('assets:\n  - { id: a, workflow: wf, agent: x, out: a.png }\n')).toEqual([
      'assetgen.yaml:2:28: assets[0].agent: does not apply to a workflow asset',
      'assetgen.yaml:2:43: assets[0].out: a workflow makes several files: give a folder ending in /',
    ]);
    expect(issues('assets:\n  - { id: a, prompt: p, agent: x, video: v }\n')[0]).toContain('prompt and video are both given');
    expect(issues('assets:\n  - { id: a, video: v, duration: -2, aspectRatio: wide }\n')).toEqual([
      'assetgen.yaml:2:34: assets[0].duration: must be a positive number of seconds',
      'assetgen.yaml:2:51: assets[0].aspectRatio: must look like 16:9',
    ]);
    expect(issues('assets:\n  - { id: 007, prompt: "", agent: x }\n')).toEqual([
      'assetgen.yaml:2:11: assets[0].id: must be a string (quote it: "007")',
      'assetgen.yaml:2:24: assets[0].prompt: is empty',
    ]);
    expect(issues('assets:\n  - { id: "../x", prompt: p, agent: a }\n')[0]).toContain('is not a usable id');
    expect(issues('assets:\n  - { id: CON, prompt: p, agent: a }\n')[0]).toContain('is not a usable id');
    expect(issues('assets:\n  - { id: w, workflow: wf, set: { node: 3 } }\n')[0]).toContain('assets[0].set.node: must be a string');
  });

  it('refuses two assets writing one file, and a manifest that is not a mapping with assets', () => {
    expect(issues('assets:\n  - { id: a, prompt: p, agent: x, out: s.png }\n  - { id: b, prompt: q, agent: x, out: S.png }\n')[0]).toBe(
      'assetgen.yaml:3:5: assets[1].out: S.png is also the output of "a"',
    );
    expect(issues('assets:\n  - { id: Sword, prompt: p, agent: x }\n  - { id: sword, prompt: q, agent: x }\n')[0]).toContain(
      'assets[1].id: duplicate id "sword" (also assets[0]; case does not count)',
    );
    // An image into assets/ is named sword.<ext>: the same file as an explicit assets/sword.png.
    expect(
      issues(
        'defaults: { agent: x, out: assets }\nassets:\n  - { id: a, prompt: p, out: assets/sword.png }\n  - { id: sword, prompt: q }\n',
      ),
    ).toEqual(['assetgen.yaml:4:5: assets[1].out: assets/sword.* is also the output of "a"']);
    expect(() =>
      manifestOf('defaults: { agent: x }\nassets:\n  - { id: a, prompt: p, out: a/ }\n  - { id: a2, prompt: p, out: a/ }\n'),
    ).not.toThrow();
    expect(issues('')).toEqual(['assetgen.yaml:1:1: the manifest must be a mapping with an `assets` list']);
    expect(issues('defaults: {}\n')).toEqual(['assetgen.yaml:1:1: assets: missing: list the assets to make']);
    expect(issues('assets: { a: 1 }\n')).toEqual(['assetgen.yaml:1:9: assets: must be a list']);
  });

  it('throws a usage error (exit 2) that lists every issue', () => {
    const error = thrown(() => manifestOf('assets:\n  - { id: a }\n  - { id: b }\n'));
    expect(error).toBeInstanceOf(ManifestError);
    expect(error).toBeInstanceOf(PipelineError);
    expect(exitCodeFor(error)).toBe(EXIT.usage);
    expect((error as ManifestError).issues).toHaveLength(2);
  });
});

describe('finding the manifest', () => {
  it('searches from the directory upward, like package.json', () => {
    const root = tempDir();
    writeFiles(root, { 'game/assetgen.yaml': EXAMPLE, 'game/src/levels/.keep': '' });
    expect(findManifest(path.join(root, 'game/src/levels'))).toBe(path.join(root, 'game/assetgen.yaml'));
    expect(findManifest(root)).toBeNull();
    expect(locateManifest(path.join(root, 'game/src'), undefined, CLI.otherManifest)).toBe(path.join(root, 'game/assetgen.yaml'));
  });

  it('-f overrides the search, and must exist', () => {
    const root = tempDir();
    writeFiles(root, { 'assetgen.yaml': EXAMPLE, 'other/pipeline.yaml': EXAMPLE });
    expect(locateManifest(root, 'other/pipeline.yaml', CLI.otherManifest)).toBe(path.join(root, 'other/pipeline.yaml'));
    expect(thrown(() => locateManifest(root, 'nope.yaml', CLI.otherManifest)).message).toBe('-f nope.yaml: no such file.');
  });

  it('says how to start when there is none', () => {
    const root = tempDir();
    const error = thrown(() => locateManifest(root, undefined, CLI.otherManifest)) as PipelineError;
    expect(error.message).toContain('No assetgen.yaml in');
    expect(error.hint).toContain('assetgen init');
  });

  it('loadManifest names the file relative to the current directory in errors', () => {
    const root = tempDir();
    writeFiles(root, { 'game/assetgen.yaml': 'assets:\n  - { id: a }\n' });
    expect(thrown(() => loadManifest(path.join(root, 'game/assetgen.yaml'), root)).message).toMatch(/^game[\\/]assetgen\.yaml:2:5: /);
    fs.writeFileSync(path.join(root, 'game/assetgen.yaml'), EXAMPLE);
    expect(loadManifest('game/assetgen.yaml', root).root).toBe(path.join(root, 'game'));
  });
});
