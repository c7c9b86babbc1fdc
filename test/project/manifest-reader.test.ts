// The fast reader of plain manifests (src/pipeline/manifest-reader.ts) against yaml itself: whatever
// it accepts, yaml reads without error into the same values at the same offsets; everything else
// it leaves to yaml; and a manifest with a problem reports it exactly as yaml's reading does.
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import { offsetPastNodeLimit } from '../../src/pipeline/manifest-limits.js';
import { readPlainManifest } from '../../src/pipeline/manifest-reader.js';
import { validateManifest, validateWithYaml } from '../../src/pipeline/validate.js';
import { EXAMPLE, manifestOf, STARTER, thrown } from './helpers.js';

/** A manifest with what plain manifests hold: comments, quotes, numbers, flow maps, a compact list. */
const VARIED = [
  '# a comment',
  '$schema: ./schema/assetgen.schema.json',
  'budget: 1200',
  'defaults:',
  '  agent: sprite-artist   # trailing comment',
  '  out: assets/',
  'assets:',
  '- id: coin',
  '  prompt: "gold coin, 32x32 # not a comment"',
  "  agent: 'icon-forge'",
  '  out: assets/icons/coin.png',
  '',
  '-   id: clip.v2',
  '    video: waves at 5:30, calm',
  '    duration: 2.5',
  "    aspectRatio: '16:9'",
  '- { id: hero, workflow: wf_sprite_sheet, out: assets/hero/ }',
  '- id: tiles',
  '  workflow: wf_tiles',
  '  set:',
  '      floor: mossy stone floor',
  '      wall: "brick wall"',
  '  out: assets/tiles/',
  '',
].join('\n');

const CORPUS = [EXAMPLE, STARTER, VARIED, VARIED.replaceAll('\n', '\r\n'), 'assets: []\n', 'assets:\n  - id: a\n    prompt: 5\n'];

/** Where yaml's nodes and the reader's differ in kind, value or start offset, all the way down. */
function differences(ours: Node | null, theirs: Node | null, where = 'top'): string[] {
  const found: string[] = [];
  if (ours?.range?.[0] !== theirs?.range?.[0]) found.push(`${where}: offset ${ours?.range?.[0]}, yaml ${theirs?.range?.[0]}`);
  if (isScalar(theirs)) {
    if (!isScalar(ours) || !Object.is(ours.value, theirs.value))
      found.push(`${where}: ${String(ours)}, yaml the scalar ${String(theirs.value)}`);
  } else if (isMap(theirs) || isSeq(theirs)) {
    const items = (ours as typeof theirs).items as unknown[];
    if ((isMap(theirs) ? !isMap(ours) : !isSeq(ours)) || items.length !== theirs.items.length)
      return [...found, `${where}: not the same collection`];
    theirs.items.forEach((item: unknown, index) => {
      if (isMap(theirs)) {
        const [pair, other] = [items[index] as Pair<Node, Node>, item as Pair<Node, Node>];
        found.push(
          ...differences(pair.key, other.key, `${where}.key${index}`),
          ...differences(pair.value, other.value, `${where}.${String(other.key)}`),
        );
      } else found.push(...differences(items[index] as Node, item as Node, `${where}[${index}]`));
    });
  } else found.push(`${where}: the reader accepted a ${String(theirs)} node`);
  return found;
}

/** Checks one text: when the reader accepts it, yaml agrees in full; either way, validation is yaml's. */
function check(text: string): boolean {
  const plain = readPlainManifest(text);
  if (plain) {
    const lines = new LineCounter();
    const doc = parseDocument(text, { uniqueKeys: true, lineCounter: lines });
    expect(doc.errors, JSON.stringify(text)).toEqual([]);
    expect(differences(plain.contents, doc.contents as Node)).toEqual([]);
    // Its node count is never below the one the limit is checked with.
    expect(offsetPastNodeLimit(text, plain.nodes)).toBeUndefined();
    const moved = [];
    for (let offset = 0; offset < text.length; offset += 7) {
      const [ours, theirs] = [plain.lines.linePos(offset), lines.linePos(offset)];
      if (ours.line !== theirs.line || ours.col !== theirs.col) moved.push(offset);
    }
    expect(moved).toEqual([]);
    // (Text the reader leaves to yaml takes yaml's path in validateManifest too.)
    expect(validateManifest(text)).toEqual(validateWithYaml(text));
  }
  return plain !== undefined;
}

/** A small deterministic generator (mulberry32), so a failing variant can be found again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What YAML treats specially, and what makes a line mean something else. */
const PIECES = [
  ':',
  ': ',
  ' #',
  '#',
  '-',
  '- ',
  "'",
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  '&a',
  '*a',
  '!',
  '|',
  '>',
  '%',
  '@',
  '`',
  '?',
  '~',
  '\t',
  '\r',
  '\n',
  '\n  ',
  ' ',
  '  ',
  '0',
  '1',
  '.5',
  '0x1',
  'null',
  'true',
  'id',
  'x',
  '---',
  '...',
  '\u00a0',
  '\ufeff',
  '\u2028',
  'é',
];

/** A variant of `text`: a few pieces inserted, a few characters cut, a line repeated or re-indented. */
function mutate(text: string, next: () => number): string {
  const pick = (length: number): number => Math.floor(next() * length);
  let result = text;
  for (let round = 1 + pick(3); round > 0; round--) {
    const at = pick(result.length + 1);
    const lines = result.split('\n');
    const line = pick(lines.length);
    switch (pick(4)) {
      case 0:
        result = result.slice(0, at) + PIECES[pick(PIECES.length)] + result.slice(at);
        break;
      case 1:
        result = result.slice(0, at) + result.slice(at + 1 + pick(3));
        break;
      case 2:
        lines.splice(line, 0, lines[line]!);
        result = lines.join('\n');
        break;
      default:
        lines[line] = next() < 0.5 ? ` ${' '.repeat(pick(2))}${lines[line]}` : lines[line]!.replace(/^ {1,2}/, '');
        result = lines.join('\n');
    }
  }
  return result;
}

describe('the plain manifest reader', () => {
  it('reads plain manifests as yaml does: values, offsets, lines, node counts and validation', () => {
    for (const text of CORPUS) expect(check(text), text).toBe(true);
    const assets = manifestOf(VARIED).assets;
    expect(assets.map((asset) => [asset.id, asset.position])).toEqual([
      ['coin', { line: 8, col: 3 }],
      ['clip.v2', { line: 13, col: 5 }],
      ['hero', { line: 17, col: 3 }],
      ['tiles', { line: 18, col: 3 }],
    ]);
    expect(assets[1]).toMatchObject({ prompt: 'waves at 5:30, calm', duration: 2.5, aspectRatio: '16:9' });
    expect(assets[0]!.prompt).toBe('gold coin, 32x32 # not a comment');
  });

  it('leaves to yaml what it does not read itself', () => {
    const others = [
      'assets: &list\n  - id: a\n    prompt: p\nmore: *list\n',
      'assets:\n  - id: a\n    prompt: |\n      block\n',
      'assets:\n  - id: a\n    prompt: a long\n      prompt on two lines\n',
      'assets:\n  - id: a\n    prompt: "an \\"escaped\\" quote"\n',
      "assets:\n  - id: a\n    prompt: 'it''s'\n",
      'assets:\n  - id: a\n    prompt: !!str 5\n',
      'assets:\n  - id: a\n    id: b\n',
      'assets:\n\t- id: a\n',
      '---\nassets: []\n',
      '{"assets": []}',
      'assets:\n  - id: 0x1F\n',
      'assets:\n  - id: a\n    prompt:\n',
      'assets:\n  - id: a\n    set: { a: "b" }\n',
    ];
    for (const text of others) {
      expect(readPlainManifest(text), text).toBeUndefined();
      check(text);
    }
  });

  it("reports a problem in a plain manifest exactly as yaml's reading does (file:line:col)", () => {
    const text =
      'defaults: { agent: sprite-artist }\nassets:\n  - id: coin\n    prompt: gold coin\n    colour: gold\n  - id: coin\n    prompt: 7\n';
    expect(readPlainManifest(text)).toBeDefined();
    expect(thrown(() => manifestOf(text)).message.split('\n')).toEqual([
      'assetgen.yaml:5:5: assets[0].colour: unknown field (expected one of: id, prompt, workflow, video, agent, set, out, duration, aspectRatio, style, matrix, post, variants, sheet, tile, checks)',
      'assetgen.yaml:6:9: assets[1].id: duplicate id "coin" (also assets[0]; case does not count)',
      'assetgen.yaml:7:13: assets[1].prompt: must be a string (quote it: "7")',
    ]);
  });

  // 500 variants (each read plain is parsed by yaml three times): 1,500 took seconds of CPU, which
  // a loaded machine stretched past the test timeout. Seeded: the same variants every run.
  it('agrees with yaml on 500 variants of plain manifests (pieces inserted, cut, lines moved)', () => {
    const next = random(19);
    let read = 0;
    for (let index = 0; index < 500; index++) {
      const text = mutate(CORPUS[index % 4]!, next);
      try {
        if (check(text)) read++;
      } catch (error) {
        throw new Error(`variant ${index}: ${JSON.stringify(text)}\n${(error as Error).message}`);
      }
    }
    // Both sides are exercised: many variants are still plain, many are not.
    expect(read).toBeGreaterThan(50);
    expect(read).toBeLessThan(450);
  });
});
