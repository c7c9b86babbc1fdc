// schema/assetgen.schema.json (for editors, through yaml-language-server) accepts the starter and
// the documented manifests, and rejects the mistakes assetgen itself rejects.
import fs from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EXAMPLE, manifestOf, STARTER, thrown } from './helpers.js';

const schema = JSON.parse(fs.readFileSync(new URL('../../schema/assetgen.schema.json', import.meta.url), 'utf8')) as object;
// Strict, except that `required` inside oneOf/if names properties declared by the parent (the usual idiom).
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const validate = ajv.compile(schema);
const docs = fs.readFileSync(new URL('../../docs/build.md', import.meta.url), 'utf8');
/** The "Errors" section shows a manifest with mistakes on purpose (test/project/docs-errors.test.ts runs it). */
const errorsSection = docs.slice(docs.indexOf('\n### Errors\n'), docs.indexOf('\n### Limits\n'));
const manifestsIn = (text: string): string[] =>
  [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!).filter((yaml) => /^assets:/m.test(yaml));
/** Every ```yaml block in docs/build.md that is a manifest (has `assets:`), but the mistaken one. */
const documented = manifestsIn(docs.replace(errorsSection, ''));

const schemaAccepts = (text: string): boolean => validate(parse(text));

describe('the JSON Schema', () => {
  it('ships in the package', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      files: string[];
      dependencies: Record<string, string>;
    };
    expect(pkg.files).toContain('schema');
    expect(pkg.dependencies.yaml).toBeDefined();
  });

  it('accepts the starter, the example of the issue and every manifest in docs/build.md, and rejects its Errors example', () => {
    expect(documented.length).toBeGreaterThan(0);
    expect(manifestsIn(errorsSection)).toHaveLength(1);
    expect(schemaAccepts(manifestsIn(errorsSection)[0]!)).toBe(false);
    for (const text of [STARTER, EXAMPLE, ...documented]) {
      expect(schemaAccepts(text), `${JSON.stringify(validate.errors)}\n${text}`).toBe(true);
      expect(() => manifestOf(text)).not.toThrow();
    }
  });

  it('the starter with its commented examples uncommented: both accept it', () => {
    const uncommented = STARTER.replace(/^(\s*)# (?=- id| {2}|style|post)/gm, '$1');
    expect(schemaAccepts(uncommented), JSON.stringify(validate.errors)).toBe(true);
    expect(manifestOf(uncommented).assets.map((asset) => asset.id)).toEqual([
      'sword',
      ...['red', 'blue', 'green'].flatMap((color) => [`potion-${color}-small`, `potion-${color}-large`]),
      'icons',
      'hero',
      'torch',
    ]);
    expect(manifestOf(uncommented).assets[0]!.post).toMatchObject([{ kind: 'trim' }, { kind: 'resize', width: 32, kernel: 'nearest' }]);
  });

  it('the starter and docs point editors at the shipped schema', () => {
    const line = '# yaml-language-server: $schema=./node_modules/assetgen/schema/assetgen.schema.json';
    expect(STARTER.split('\n')[0]).toBe(line);
    expect(docs).toContain(line);
  });

  it('rejects what assetgen rejects', () => {
    const bad = [
      'assets:\n  - { id: a, promt: p }\n', // unknown field
      'assets:\n  - { id: a, agent: x }\n', // missing prompt
      'assets:\n  - { id: a, prompt: p, agent: x, video: v }\n', // two kinds
      'assets:\n  - { id: a, workflow: wf, agent: x }\n', // agent on a workflow
      'assets:\n  - { id: a, workflow: wf, out: a.png }\n', // a workflow into one file
      'assets:\n  - { id: a, prompt: p, agent: x, set: { n: q } }\n', // set on an image
      'assets:\n  - { id: a, video: v, duration: 0 }\n', // bad duration
      'assets:\n  - { id: a, video: v, aspectRatio: wide }\n', // bad ratio
      'assets:\n  - { id: ../a, prompt: p, agent: x }\n', // bad id
      'assets:\n  - { id: a, prompt: p, agent: x, out: ../up/ }\n', // outside the project
      'assets:\n  - { id: a, prompt: p, agent: x, out: /abs/ }\n', // absolute
      'assets:\n  - { id: a, prompt: "  ", agent: x }\n', // blank prompt
      'defaults: { agent: x, colour: red }\nassets: []\n', // unknown default
      'defaults: { agent: x }\n', // no assets
      'vars: [a]\nassets: []\n', // vars not a mapping
      'vars: { 2x: a }\nassets: []\n', // not a variable name
      'vars: { a: [1] }\nassets: []\n', // a list as a value
      'defaults: { agent: x, style: 5 }\nassets: []\n', // a style that is not a text
      'assets:\n  - { id: a, prompt: p, agent: x, style: [s] }\n',
      'assets:\n  - { id: "a-${c}", prompt: p, agent: x, matrix: [c] }\n', // matrix not a mapping
      'assets:\n  - { id: "a-${c}", prompt: p, agent: x, matrix: {} }\n', // no variable
      'assets:\n  - { id: "a-${c}", prompt: p, agent: x, matrix: { c: [] } }\n', // an empty list
      'assets:\n  - { id: "a-${c}", prompt: p, agent: x, matrix: { c: [{ d: 1 }] } }\n', // a mapping as a value
      'assets:\n  - { id: "a-${c}", prompt: p, agent: x, matrix: { c: [1, null] } }\n', // an empty value
      'assets:\n  - { id: a, prompt: p, agent: x, matrix: { c: [1, 2] } }\n', // the id uses no variable
      'assets:\n  - { id: "a-${c}", prompt: p, agent: x, matrix: { 1c: [1] } }\n', // not a variable name
      'provenance: embed\nassets: []\n', // provenance is sidecar, a place, or absent
      'provenance: { sidecars: nearby }\nassets: []\n', // not a place
      'provenance: { sidecars: beside, dir: meta }\nassets: []\n', // a dir goes with folder only
      'provenance: { dir: meta }\nassets: []\n', // no place
      'provenance: { sidecars: folder, into: meta }\nassets: []\n', // unknown field
      'assets:\n  - { id: a, prompt: p, agent: x, post: [blur] }\n', // unknown post step
      'assets:\n  - { id: a, prompt: p, agent: x, post: [{ resize: { width: 0 } }] }\n', // bad resize
      'assets:\n  - { id: a, prompt: p, agent: x, post: [{ palette: 1 }] }\n', // too few colours
      'assets:\n  - { id: a, prompt: p, agent: x, post: [{ format: gif }] }\n', // bad format
      'assets:\n  - { id: a, prompt: p, agent: x, post: [{ trim: { threshold: 300 } }] }\n', // bad threshold
      'assets:\n  - { id: a, workflow: wf, post: [pot], out: o/ }\n', // post on a workflow
      'defaults: { agent: x, post: trim }\nassets: []\n', // not a list
      'assets:\n  - { id: a, prompt: p, agent: x, out: .assetgen/a.png }\n', // assetgen's own folder
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [a] } }\n', // a sheet without out
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [a] }, out: s/ }\n', // a sheet into a folder
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [a] }, out: s.webp }\n', // not a .png
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [] }, out: s.png }\n', // nothing to pack
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [a], padding: -1 }, out: s.png }\n', // bad padding
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [a], maxSize: 1000 }, out: s.png }\n', // not a power of two
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [a], rotate: true }, out: s.png }\n', // unknown option
      'assets:\n  - { id: a, prompt: p, agent: x }\n  - { id: s, sheet: { from: [a] }, agent: x, out: s.png }\n', // agent on a sheet
    ];
    for (const text of bad) {
      expect(schemaAccepts(text), text).toBe(false);
      expect(thrown(() => manifestOf(text)).message, text).toMatch(/^assetgen\.yaml:\d+:\d+: /);
    }
  });
});
