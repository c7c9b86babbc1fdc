// A sheet's `animations`: read from the manifest (each mistake at its file:line:col), checked against
// the frames its inputs can give (a slice's `<id>-<n>`, up to its count), resolved into frame names
// by frame number (not by text: 2 before 10), and written by the packer as the JSON-hash's
// `animations`, with a sliced frame's trim offset kept in spriteSourceSize.
import { describe, expect, it } from 'vitest';
import { atlasJson, packAtlas } from '../../src/imaging/atlas.js';
import { ImagingError } from '../../src/imaging/errors.js';
import { compareProjectPaths } from '../../src/pipeline/paths.js';
import { compareFrameNames, resolveAnimations, sheetFrames } from '../../src/pipeline/sheet.js';
import { makePixels, toPng } from '../imaging/pixels.js';
import { manifestOf, thrown } from './helpers.js';

const error = (text: string): string => thrown(() => manifestOf(text)).message;
const assets = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: hero-walk, prompt: a walk, post: [{ slice: { columns: 4, rows: 2 } }, trim] }
  - { id: hero-jump, prompt: a jump, post: [{ slice: { gaps: transparent } }] }
  - { id: coin, prompt: a coin }
`;
const sheet = (animations: string) => `${assets}  - id: hero
    sheet: { from: ["hero-*", coin], animations: ${animations} }
    out: sheets/hero.png
`;

describe('animations in the manifest', () => {
  it('reads names to a selector or a list, kept as written', () => {
    const manifest = manifestOf(sheet('{ walk: "hero-walk-*", jump: [hero-jump-1, "hero-jump-1?"], spin: coin }'));
    expect(manifest.assets.find((asset) => asset.id === 'hero')!.sheet!.animations).toEqual({
      walk: 'hero-walk-*',
      jump: ['hero-jump-1', 'hero-jump-1?'],
      spin: 'coin',
    });
  });

  it('names every selector that can name no frame of the sheet, at its line and column', () => {
    expect(error(sheet('{ walk: [hero-walk-1, hero-walk-9, hero-walk] }'))).toBe(
      [
        'assetgen.yaml:7:72: assets[3].sheet.animations.walk[1]: "hero-walk-9" names no frame of this sheet (its frames are named after hero-walk, hero-jump, coin)',
        'assetgen.yaml:7:85: assets[3].sheet.animations.walk[2]: "hero-walk" names no frame of this sheet (its frames are named after hero-walk, hero-jump, coin)',
      ].join('\n'),
    );
    expect(error(sheet('{ spin: "coin-*" }'))).toMatch(/animations\.spin: "coin-\*" names no frame of this sheet/);
    // A gap slice's frames are counted only when it runs: any number may be named (the pack checks).
    expect(() => manifestOf(sheet('{ jump: hero-jump-40 }'))).not.toThrow();
  });

  it.each([
    ['walk', /animations: must be a mapping of animation names to frame names or globs/],
    ['{}', /animations: must be a mapping/],
    ['{ walk: [] }', /animations\.walk: is empty: name its frames/],
    ['{ walk: [""] }', /animations\.walk\[0\]: must be a frame name or a glob over frame names/],
    ['{ walk: 3 }', /animations\.walk: must be a frame name or a glob over frame names/],
  ])('refuses animations: %s', (value, message) => {
    expect(error(sheet(value))).toMatch(message);
  });
});

describe('frames and their order', () => {
  it('a slice’s frames are <id>-<n> by frame number, even one; paths in the lock go by frame number too', () => {
    const files: Record<string, string[]> = {
      walk: Array.from({ length: 11 }, (_, index) => `assets/walk-${index + 1}.png`).reverse(),
      single: ['assets/single-1.png'],
    };
    expect(sheetFrames(['walk', 'single'], (id) => files[id] ?? [], ['walk', 'single']).map((frame) => frame.name)).toEqual([
      ...Array.from({ length: 11 }, (_, index) => `walk-${index + 1}`),
      'single-1',
    ]);
    expect(sheetFrames(['walk'], (id) => files[id] ?? [])[9]).toEqual({ name: 'walk-10', path: 'assets/walk-10.png' });
    expect(['a/x-10.png', 'a/x-2.png', 'a/x-1a.png', 'a/x.png', 'a/x-1.png'].sort(compareProjectPaths)).toEqual([
      'a/x-1.png',
      'a/x-2.png',
      'a/x-10.png',
      'a/x-1a.png',
      'a/x.png',
    ]);
  });

  it('resolves globs by frame number and lists in their order; unknown selectors named', () => {
    const names = ['coin', 'hero-walk-1', 'hero-walk-10', 'hero-walk-11', 'hero-walk-2', 'hero-walk-9'];
    expect(
      resolveAnimations({ walk: 'hero-walk-*', bounce: ['hero-walk-2', 'coin', 'hero-walk-1?'], none: ['x-*', 'coin'] }, names),
    ).toEqual({
      animations: {
        walk: ['hero-walk-1', 'hero-walk-2', 'hero-walk-9', 'hero-walk-10', 'hero-walk-11'],
        bounce: ['hero-walk-2', 'coin', 'hero-walk-10', 'hero-walk-11'],
        none: ['coin'],
      },
      unknown: ['none: x-*'],
    });
    expect(['b2', 'a10', 'a9', 'a09', 'a'].sort(compareFrameNames)).toEqual(['a', 'a09', 'a9', 'a10', 'b2']);
  });
});

describe('packAtlas with animations and placed frames', () => {
  const red = (width: number, height: number) => toPng(makePixels(width, height, () => [220, 20, 20, 255]));

  it('writes animations between frames and meta; a placed frame keeps its offset in its source', async () => {
    const atlas = await packAtlas(
      [
        { name: 'walk-1', bytes: await red(4, 6), placed: { x: 3, y: 5, width: 4, height: 6, sourceWidth: 24, sourceHeight: 24 } },
        { name: 'walk-2', bytes: await red(5, 5), placed: { x: 1, y: 2, width: 9, height: 9, sourceWidth: 24, sourceHeight: 24 } },
      ],
      { animations: { walk: ['walk-2', 'walk-1', 'walk-2'] } },
    );
    expect(Object.keys(atlas.data)).toEqual(['frames', 'animations', 'meta']);
    expect(atlas.data.animations).toEqual({ walk: ['walk-2', 'walk-1', 'walk-2'] });
    expect(atlas.data.frames['walk-1']).toMatchObject({
      trimmed: true,
      spriteSourceSize: { x: 3, y: 5, w: 4, h: 6 },
      sourceSize: { w: 24, h: 24 },
    });
    // Its record is of another size (a resize came after the trim): packed as it is.
    expect(atlas.data.frames['walk-2']).toMatchObject({
      trimmed: false,
      spriteSourceSize: { x: 0, y: 0, w: 5, h: 5 },
      sourceSize: { w: 5, h: 5 },
    });
    expect(atlasJson(atlas.data)).toContain('"animations": {\n    "walk": [\n      "walk-2",');
    // No animations: the data is as before, without the key.
    const plain = await packAtlas([{ name: 'walk-1', bytes: await red(4, 6) }]);
    expect(Object.keys(plain.data)).toEqual(['frames', 'meta']);
  });

  it('a placed frame packed with trim: its own transparent border comes off, the offsets add', async () => {
    const framed = await toPng(makePixels(6, 6, (x, y) => (x >= 2 && y >= 1 && x < 5 && y < 4 ? [10, 200, 10, 255] : [0, 0, 0, 0])));
    const atlas = await packAtlas(
      [{ name: 'f', bytes: framed, placed: { x: 10, y: 7, width: 6, height: 6, sourceWidth: 32, sourceHeight: 32 } }],
      { trim: true },
    );
    expect(atlas.data.frames.f).toMatchObject({
      trimmed: true,
      spriteSourceSize: { x: 12, y: 8, w: 3, h: 3 },
      sourceSize: { w: 32, h: 32 },
    });
  });

  it('refuses an animation naming a frame the atlas does not have, naming it', async () => {
    const frames = [{ name: 'walk-1', bytes: await red(2, 2) }];
    const refused = await packAtlas(frames, { animations: { walk: ['walk-1', 'walk-3', 'walk-3'] } }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ImagingError);
    expect((refused as ImagingError).message).toBe('animation "walk" names frames the atlas does not have: "walk-3"');
  });
});
