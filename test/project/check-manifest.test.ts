// The manifest's `checks:` and `tile:` (docs/check.md): rules read into each asset (its own over
// defaults.checks, rule by rule; `false` turns one off), matrix members named by their group, and
// every mistake reported at its file:line:col with the field, as the other fields are; the JSON
// Schema agrees.
import fs from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { manifestOf, thrown } from './helpers.js';

const schema = JSON.parse(fs.readFileSync(new URL('../../schema/assetgen.schema.json', import.meta.url), 'utf8')) as object;
const schemaAccepts = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);
const accepts = (text: string): boolean => schemaAccepts(parse(text));

const VALID = `defaults:
  agent: icon-forge
  checks: { alpha: required, fill: { min: 0.4 } }
assets:
  - id: sword
    prompt: a sword
    checks: { colors: { max: 16 }, fill: { min: 0.5, max: 0.9 } }
  - id: floor
    prompt: a floor tile
    tile: true
    checks: { alpha: false, seam: { max: 8 } }
  - id: gem-\${c}
    prompt: a \${c} gem
    matrix: { c: [red, blue] }
    checks: { outlier: { max: 12 } }
  - id: hero
    workflow: wf_hero
    out: art/
  - id: gems
    sheet: { from: ["gem-*"] }
    out: gems.png
    checks: { alpha: required }
  - id: torch
    video: a torch
`;

describe('checks: and tile: in the manifest', () => {
  it('merge the defaults under each image and workflow asset, rule by rule; sheets and videos take none of them', () => {
    expect(accepts(VALID)).toBe(true);
    const assets = Object.fromEntries(manifestOf(VALID).assets.map((asset) => [asset.id, asset]));
    expect(assets.sword!.checks).toEqual({ alpha: 'required', fill: { min: 0.5, max: 0.9 }, colors: { max: 16 } });
    expect(assets.floor).toMatchObject({ tile: true, checks: { fill: { min: 0.4 }, seam: { max: 8 } } });
    expect(assets.floor!.checks!.alpha).toBeUndefined();
    expect(assets['gem-red']).toMatchObject({ matrix: 'gem-${c}', checks: { alpha: 'required', outlier: { max: 12 } } });
    expect(assets.hero!.checks).toEqual({ alpha: 'required', fill: { min: 0.4 } });
    expect(assets.gems!.checks).toEqual({ alpha: 'required' });
    expect(assets.torch!.checks).toBeUndefined();
    expect(assets.sword!.tile).toBeUndefined();
    expect(assets.sword!.matrix).toBeUndefined();
  });

  it('report each mistake at its line and column, naming the field and what it must be', () => {
    const text = `defaults:
  agent: x
  checks: { alpha: maybe }
assets:
  - id: a
    prompt: p
    checks: { fill: { min: 0.8, max: 0.2 }, colors: { max: 5000 }, palette: 3 }
  - id: b
    prompt: p
    checks: { seam: { max: 8 }, outlier: { max: 3.5 }, fill: 0.5 }
  - id: c
    prompt: p
    tile: yes
  - id: d
    video: v
    checks: { alpha: required }
  - id: e
    prompt: p
    checks: [alpha]
  - id: f
    prompt: p
    checks: { colors: {} }
`;
    expect(thrown(() => manifestOf(text)).message.split('\n')).toEqual([
      'assetgen.yaml:3:20: defaults.checks.alpha: must be required (some transparency), forbidden (none) or false',
      'assetgen.yaml:7:21: assets[0].checks.fill: min (0.8) is above max (0.2)',
      'assetgen.yaml:7:60: assets[0].checks.colors.max: must be a whole number of colours from 1 to 4096, not 5000',
      'assetgen.yaml:7:68: assets[0].checks.palette: unknown field (expected one of: alpha, fill, colors, seam, outlier)',
      'assetgen.yaml:10:15: assets[1].checks.seam: a seam is measured on tiles only: add tile: true to this asset',
      'assetgen.yaml:10:49: assets[1].checks.outlier.max: must be a whole number of bits from 0 to 64, not 3.5',
      'assetgen.yaml:10:62: assets[1].checks.fill: must be a mapping: min: <a fraction of the canvas from 0 to 1>, max: <a fraction of the canvas from 0 to 1> (or false)',
      'assetgen.yaml:13:11: assets[2].tile: must be true (the image repeats edge to edge: check measures its seam) or false',
      'assetgen.yaml:16:5: assets[3].checks: does not apply to a video asset: check measures images',
      'assetgen.yaml:19:13: assets[4].checks: must be a mapping of rules (alpha, fill, colors, seam, outlier)',
      'assetgen.yaml:22:23: assets[5].checks.colors: must be a mapping: max: <a whole number of colours from 1 to 4096> (or false)',
    ]);
    for (const bad of [
      'assets:\n  - { id: a, prompt: p, agent: x, checks: { alpha: maybe } }\n',
      'assets:\n  - { id: a, prompt: p, agent: x, checks: { colors: { max: 5000 } } }\n',
      'assets:\n  - { id: a, prompt: p, agent: x, checks: { palette: 3 } }\n',
      'assets:\n  - { id: a, prompt: p, agent: x, tile: yes }\n',
      'assets:\n  - { id: a, video: v, checks: { alpha: required } }\n',
      'assets:\n  - { id: a, video: v, tile: true }\n',
      'assets:\n  - { id: a, prompt: p, agent: x, checks: { fill: { min: 2 } } }\n',
    ])
      expect(accepts(bad), bad).toBe(false);
  });
});
