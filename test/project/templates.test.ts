// Prompt templates: `vars`, `${name}`, `style` and `matrix` expanded before anything reads the
// assets, and every mistake in them a file:line:col error (exit 2) naming the variable or entries.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ManifestError } from '../../src/pipeline/errors.js';
import { readTemplate, renderTemplate } from '../../src/pipeline/template-text.js';
import { MAX_EXPANDED_ASSETS } from '../../src/pipeline/templates.js';
import { MANIFEST_LIMITS } from '../../src/pipeline/manifest-limits.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { manifestOf, thrown } from './helpers.js';

const lines = (...rows: string[]): string => `${rows.join('\n')}\n`;
/** The issue lines a manifest text produces. */
const issues = (text: string): string[] => thrown(() => manifestOf(text)).message.split('\n');
const assetsOf = (text: string) => manifestOf(text).assets.map(({ position: _, ...asset }) => asset);

const POTIONS = lines(
  'vars: { place: a flooded dungeon }',
  'defaults:',
  '  agent: icon-forge',
  '  style: 32x32 pixel art',
  'assets:',
  '  - id: potion-${color}-${size}',
  '    prompt: a ${size} ${color} potion from ${place}',
  '    out: assets/${size}/',
  '    matrix:',
  '      color: [red, blue, green]',
  '      size: [small, large]',
);

describe('template texts', () => {
  it('replaces ${name}; $${ is a literal ${; any other $ is text', () => {
    const template = readTemplate('a ${size} $5 potion, $${not} ${size}$');
    expect([...template.uses]).toEqual([['size', 2]]);
    expect(template.problems).toEqual([]);
    expect(renderTemplate(template, new Map([['size', 'big']]))).toBe('a big $5 potion, ${not} big$');
  });

  it('finds a ${ that starts no variable, at its index', () => {
    expect(readTemplate('x ${a b} y').problems).toEqual([{ at: 2, message: expect.stringMatching(/^"\$\{a b\}" is not a variable name/) }]);
    expect(readTemplate('x ${open').problems[0]).toMatchObject({ at: 2, message: expect.stringMatching(/without a closing/) });
  });
});

describe('expansion', () => {
  it('a 3×2 matrix is six assets, the last variable changing fastest; vars and the style in each prompt', () => {
    const assets = assetsOf(POTIONS);
    expect(assets.map((asset) => asset.id)).toEqual([
      'potion-red-small',
      'potion-red-large',
      'potion-blue-small',
      'potion-blue-large',
      'potion-green-small',
      'potion-green-large',
    ]);
    expect(assets[3]).toEqual({
      id: 'potion-blue-large',
      kind: 'image',
      agent: 'icon-forge',
      prompt: 'a large blue potion from a flooded dungeon, 32x32 pixel art',
      out: { type: 'folder', dir: 'assets/large' },
      // Its group for `assetgen check`'s outliers: the entry's id pattern.
      matrix: 'potion-${color}-${size}',
    });
    // Every expansion points at its template.
    expect(new Set(manifestOf(POTIONS).assets.map((asset) => JSON.stringify(asset.position)))).toEqual(new Set(['{"line":6,"col":5}']));
  });

  it('the style: "<prompt>, <style>" on images, videos and each set value; an asset’s own replaces it, "" removes it', () => {
    const assets = assetsOf(
      lines(
        'vars: { tone: grim }',
        'defaults: { agent: icon-forge, style: "  ${tone}, pixel art  " }',
        'assets:',
        '  - { id: a, prompt: "sword   " }',
        '  - { id: b, video: waves }',
        '  - { id: c, workflow: wf, set: { hero: a dwarf, villain: an orc }, out: c/ }',
        '  - { id: d, prompt: shield, style: "" }',
        '  - { id: "e-${n}", prompt: helmet, style: "watercolour ${n}", matrix: { n: [1, 2.5] } }',
        '  - { id: f, workflow: wf, out: f/ }',
      ),
    );
    expect(assets.map((asset) => asset.prompt ?? asset.set ?? asset.workflow)).toEqual([
      'sword, grim, pixel art',
      'waves, grim, pixel art',
      { hero: 'a dwarf, grim, pixel art', villain: 'an orc, grim, pixel art' },
      'shield',
      'helmet, watercolour 1',
      'helmet, watercolour 2.5',
      'wf', // a workflow without `set` has no prompt to join it to
    ]);
  });

  it('vars in defaults, set values, agent and out; an alias to a template; a matrix variable shadows a var', () => {
    const assets = assetsOf(
      lines(
        'vars: { folder: art, who: dwarf, agent: icon-forge }',
        'defaults:',
        '  agent: ${agent}',
        '  out: ${folder}/',
        'assets:',
        '  - id: hero',
        '    workflow: wf_${who}',
        '    set: { character: "a ${who} miner" }',
        '    out: ${folder}/sprites/',
        '  - id: shared',
        '    prompt: &p a ${who} shield',
        '  - id: shield-${who}',
        '    prompt: *p',
        '    matrix: { who: [elf] }',
      ),
    );
    expect(assets).toEqual([
      {
        id: 'hero',
        kind: 'workflow',
        workflow: 'wf_dwarf',
        set: { character: 'a dwarf miner' },
        out: { type: 'folder', dir: 'art/sprites' },
      },
      { id: 'shared', kind: 'image', agent: 'icon-forge', prompt: 'a dwarf shield', out: { type: 'folder', dir: 'art' } },
      {
        id: 'shield-elf',
        kind: 'image',
        agent: 'icon-forge',
        prompt: 'a elf shield',
        out: { type: 'folder', dir: 'art' },
        matrix: 'shield-${who}',
      },
    ]);
  });

  it('a manifest without templates is read as before (the same assets, the same fields in errors)', () => {
    const text = lines('defaults: { agent: x }', 'assets:', '  - { id: a, prompt: "costs $5" }', '  - { id: b, prompt: p, colour: red }');
    expect(issues(text)).toEqual([expect.stringMatching(/^assetgen\.yaml:4:25: assets\[1\]\.colour: unknown field/)]);
  });
});

describe('errors, each at its file:line:col (exit 2)', () => {
  it('an unknown variable: named, at the variable in plain and quoted texts, at the value in a block text', () => {
    const text = lines(
      'vars: { place: cave }',
      'defaults: { agent: x, style: "${tone}" }',
      'assets:',
      '  - id: potion-${color}',
      '    prompt: a ${colr} potion',
      '    matrix: { color: [red, blue] }',
      '  - { id: b, prompt: "in the ${plase}" }',
      '  - id: c',
      '    prompt: >-',
      '      a ${nope}',
    );
    const error = thrown(() => manifestOf(text)) as ManifestError;
    expect(exitCodeFor(error)).toBe(EXIT.usage);
    expect(error.message.split('\n')).toEqual([
      'assetgen.yaml:2:31: defaults.style: unknown variable ${tone} (known: place)',
      'assetgen.yaml:5:15: assets[0].prompt: unknown variable ${colr} (known: color, place)',
      'assetgen.yaml:7:30: assets[1].prompt: unknown variable ${plase} (known: place)',
      'assetgen.yaml:9:13: assets[2].prompt: unknown variable ${nope} (known: place)',
    ]);
  });

  it('a duplicate expanded id names both entries, within a matrix and against another entry', () => {
    const text = lines(
      'defaults: { agent: x }',
      'assets:',
      '  - { id: potion-red-small, prompt: p }',
      '  - id: potion-${color}-${size}',
      '    prompt: p',
      '    matrix: { color: [red, Red], size: [small] }',
    );
    expect(issues(text)).toEqual([
      'assetgen.yaml:4:9: assets[1][color=red,size=small].id: duplicate id "potion-red-small" (also assets[0]; case does not count)',
      'assetgen.yaml:4:9: assets[1][color=Red,size=small].id: duplicate id "potion-Red-small" (also assets[0]; case does not count)',
    ]);
    const inOne = lines('defaults: { agent: x }', 'assets:', '  - id: p-${a}', '    prompt: ${b}', '    matrix: { a: [1], b: [x, y] }');
    expect(issues(inOne)).toEqual([
      'assetgen.yaml:3:9: assets[0][a=1,b=y].id: duplicate id "p-1" (also assets[0][a=1,b=x]; case does not count)',
    ]);
  });

  it('a matrix that is not a map of non-empty lists of texts or numbers', () => {
    const entry = (matrix: string) =>
      lines('defaults: { agent: x }', 'assets:', '  - id: p-${a}', '    prompt: p', `    matrix: ${matrix}`);
    expect(issues(entry('[red, blue]'))).toEqual([
      'assetgen.yaml:3:11: assets[0].id: unknown variable ${a} (none is defined: add it under vars (or this entry’s matrix))',
      'assetgen.yaml:5:13: assets[0].matrix: must be a mapping of variable → list of values, e.g. { color: [red, blue] }',
    ]);
    expect(issues(entry('{}'))).toContain(
      'assetgen.yaml:5:13: assets[0].matrix: must be a mapping of variable → list of values, e.g. { color: [red, blue] }',
    );
    expect(issues(entry('{ a: [] }'))).toContain(
      'assetgen.yaml:5:18: assets[0].matrix.a: must be a non-empty list of values, e.g. [red, blue]',
    );
    expect(issues(entry('{ a: red }'))).toContain(
      'assetgen.yaml:5:18: assets[0].matrix.a: must be a non-empty list of values, e.g. [red, blue]',
    );
    expect(issues(entry('{ a: [red, { b: 1 }] }'))).toContain(
      'assetgen.yaml:5:24: assets[0].matrix.a: values must be texts or numbers (not lists, mappings or empty)',
    );
    expect(issues(entry('{ a: [red, null] }'))).toContainEqual(
      expect.stringMatching(/^assetgen\.yaml:5:24: assets\[0\]\.matrix\.a: values must be/),
    );
    expect(issues(entry('{ a: [1], 2x: [1] }'))).toContain(
      'assetgen.yaml:5:23: assets[0].matrix: "2x" is not a variable name: letters, digits and _, not starting with a digit',
    );
  });

  it('an id (or a one-file out) that uses no matrix variable: every combination would collide', () => {
    const text = lines(
      'defaults: { agent: x }',
      'assets:',
      '  - id: potion',
      '    prompt: a ${c} potion',
      '    out: potion.png',
      '    matrix: { c: [red, blue] }',
    );
    expect(issues(text)).toEqual([
      'assetgen.yaml:3:9: assets[0].id: uses no matrix variable, so every combination would get the same id: use ${c}',
      'assetgen.yaml:5:10: assets[0].out: one file for every combination: use a folder ending in / or a matrix variable (${c})',
    ]);
    expect(issues(lines('assets:', '  - prompt: p', '    agent: x', '    matrix: { c: [a] }'))).toEqual([
      'assetgen.yaml:4:5: assets[0].id: a matrix entry needs an id pattern that uses its variables (${c})',
    ]);
  });

  it(`too many expansions: at most ${MAX_EXPANDED_ASSETS} from all the matrices of a manifest`, () => {
    const values = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
    const entry = (id: string, a: number, b: number) => [
      `  - id: ${id}-\${a}-\${b}`,
      '    prompt: p',
      `    matrix: { a: ${values(a)}, b: ${values(b)} }`,
    ];
    expect(assetsOf(lines('defaults: { agent: x }', 'assets:', ...entry('p', 100, 100)))).toHaveLength(MAX_EXPANDED_ASSETS);
    expect(issues(lines('defaults: { agent: x }', 'assets:', ...entry('p', 100, 100), ...entry('q', 1, 1)))).toEqual([
      'assetgen.yaml:8:5: assets[1].matrix: expands to 1 assets, past the 10000 that all the matrices of a manifest may make; split it into several manifests (-f)',
    ]);
    expect(issues(lines('defaults: { agent: x }', 'assets:', ...entry('p', 1000, 1000)))[0]).toMatch(
      /^assetgen\.yaml:5:5: assets\[0\]\.matrix: expands to 1000000 assets/,
    );
  });

  it(`texts are bounded by their expanded size, reckoned before expanding: ${MANIFEST_LIMITS.expandedText} characters each`, () => {
    const limit = MANIFEST_LIMITS.expandedText;
    const entry = (v: number, style = '') =>
      lines(`vars: { v: ${'v'.repeat(v)} }`, `defaults: { agent: x${style} }`, 'assets:', '  - id: a', '    prompt: p ${v}');
    // At the limit: the prompt as sent, its style joined, is exactly as long as reckoned.
    expect(assetsOf(entry(limit - 2))[0]!.prompt).toHaveLength(limit);
    expect(assetsOf(entry(limit - 5, ', style: s'))[0]!.prompt).toHaveLength(limit);
    const pastBy = (over: number) =>
      `expands to ${limit + over} characters, past the ${limit} one text may have once its templates are expanded (vars, matrix values, style); use shorter vars`;
    const past = pastBy(1);
    expect(issues(entry(limit - 1))).toEqual([`assetgen.yaml:5:13: assets[0].prompt: ${past}`]);
    expect(issues(entry(limit - 4, ', style: s'))).toEqual([`assetgen.yaml:5:13: assets[0].prompt: ${past}`]);
    // The same in a set value, a matrix value, and the defaults rendered with vars.
    const big = 'w'.repeat(limit);
    expect(issues(lines('assets:', '  - id: w', '    workflow: wf', `    set: { n: "\${v}" }`, `vars: { v: ${big}x }`))).toEqual([
      `assetgen.yaml:4:15: assets[0].set.n: ${past}`,
    ]);
    expect(
      issues(lines('defaults: { agent: x }', 'assets:', '  - id: a-${n}', '    prompt: ${n}', `    matrix: { n: [1, ${big}x] }`)),
    ).toEqual([`assetgen.yaml:3:9: assets[0].id: ${pastBy(3)}`, `assetgen.yaml:4:13: assets[0].prompt: ${past}`]);
    expect(
      issues(lines(`vars: { v: ${big} }`, 'defaults: { agent: x, style: "${v}s", out: "${v}/" }', 'assets:', '  - { id: a, prompt: p }')),
    ).toEqual([`assetgen.yaml:2:30: defaults.style: ${past}`, `assetgen.yaml:2:44: defaults.out: ${past}`]);
  });

  it(`all the texts templates make in a manifest are bounded too: ${MANIFEST_LIMITS.expandedTotal} characters`, () => {
    const values = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
    const v = 32_768;
    const entry = (id: string, n: number) => [`  - id: ${id}-\${n}`, '    prompt: ${v}', `    matrix: { n: ${values(n)} }`];
    const head = [`vars: { v: ${'v'.repeat(v)} }`, 'defaults: { agent: x }', 'assets:'];
    expect(assetsOf(lines(...head, ...entry('a', 500)))).toHaveLength(500);
    // 300 × 32,768 characters of prompts twice: the second entry is the one past the limit (its ids `b-0` … `b-299` counted too).
    expect(issues(lines(...head, ...entry('a', 300), ...entry('b', 300)))).toEqual([
      `assetgen.yaml:7:5: assets[1]: its templates expand to ${300 * v + 300 * 2 + (10 + 90 * 2 + 200 * 3)} characters, bringing the manifest past the ${MANIFEST_LIMITS.expandedTotal} characters its templates may make in all; use shorter vars or fewer combinations, or split it into several manifests (-f)`,
    ]);
  });

  it('a combination is named in messages with its values cut short', () => {
    const long = 'y'.repeat(500);
    const [issue] = issues(lines('defaults: { agent: x }', 'assets:', '  - id: p-${a}', '    prompt: p', `    matrix: { a: [${long}] }`));
    expect(issue).toMatch(/^assetgen\.yaml:3:9: assets\[0\]\[a=y{118}…\]\.id: "p-y{500}" is not a usable id/);
  });

  it('a malformed ${, a bad vars entry, a style that is not a text', () => {
    const text = lines(
      'vars:',
      '  ok: 1',
      '  list: [a]',
      '  2bad: x',
      'defaults: { agent: x }',
      'assets:',
      '  - { id: a, prompt: "x ${open" }',
      '  - { id: b, prompt: p, style: [a] }',
    );
    expect(issues(text)).toEqual([
      'assetgen.yaml:3:9: vars.list: must be a text or a number',
      'assetgen.yaml:4:3: vars: "2bad" is not a variable name: letters, digits and _, not starting with a digit',
      'assetgen.yaml:7:25: assets[0].prompt: "${" without a closing "}": write ${name} (letters, digits, _), or $${ for a literal ${',
      'assetgen.yaml:8:32: assets[1].style: must be a text ("" for no style)',
    ]);
  });

  it('a mistake repeated in every combination is listed once; ${…} unquoted in { } gets a hint', () => {
    const text = lines(
      'defaults: { agent: x }',
      'assets:',
      '  - id: p-${a}',
      '    prompt: p',
      '    promt: q',
      '    matrix: { a: [1, 2, 3] }',
    );
    expect(issues(text)).toEqual([
      expect.stringMatching(/^assetgen\.yaml:5:5: assets\[0\]\[a=1\]\.promt: unknown field .* \(and 2 more combinations\)$/),
    ]);
    const flow = thrown(() => manifestOf(lines('assets:', '  - { id: p-${a}, prompt: p, agent: x, matrix: { a: [1] } }'))) as ManifestError;
    expect(flow.hint).toMatch(/quote a text that uses \$\{…\}/);
  });
});

describe('docs/build.md, Templates', () => {
  const docs = fs.readFileSync(new URL('../../docs/build.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('### Templates'), docs.indexOf('### Errors'));
  const example = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
  const documentedErrors = /\n```\n(assetgen[\s\S]*?)```/.exec(section)![1]!.trim().split('\n');

  it('the example is the eight assets it says, the first prompt as it says', () => {
    const assets = manifestOf(example).assets;
    expect(assets.map((asset) => asset.id)).toEqual([
      ...['red', 'blue', 'green'].flatMap((color) => [`potion-${color}-small`, `potion-${color}-large`]),
      'key',
      'hero',
    ]);
    expect(section.replace(/\s+/g, ' ')).toContain(`sent as "${assets[0]!.prompt}"`);
    expect(assets.find((asset) => asset.id === 'key')!.prompt).toBe('an iron key from a flooded dungeon');
  });

  it('each documented error is what the mistake it names gives', () => {
    const mistakes = [
      example.replace('${color} potion', '${colour} potion'),
      example.replace('potion-${color}-${size}', 'potion-${color}'),
      example.replace('potion-${color}-${size}', 'potion'),
      example.replace('size: [small, large]', 'size: []'),
      example.replace('size: [small, large]', `size: [${Array.from({ length: 4000 }, (_, i) => i).join(', ')}]`),
    ];
    expect(documentedErrors).toHaveLength(mistakes.length);
    mistakes.forEach((text, index) => expect(issues(text)).toContain(documentedErrors[index]));
  });
});
