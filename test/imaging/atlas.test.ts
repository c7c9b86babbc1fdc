// Atlases on real pixels: every frame is in the PNG at the rectangle its JSON says (compared pixel by
// pixel with the source), extrusion repeats the edges, padding stays transparent, the same frames
// give the same bytes in any order, and frames that do not fit are an error.
import { describe, expect, it } from 'vitest';
import { atlasJson, packAtlas, type AtlasFrameInput } from '../../src/imaging/atlas.js';
import { ImagingError } from '../../src/imaging/errors.js';
import { checkAtlas } from './atlas-check.js';
import { makePixels, noisy, readPixels, region, toPng, type Pixels } from './pixels.js';

const SIZES: [string, number, number][] = [
  ['hero/idle-0', 10, 10],
  ['hero/idle-1', 16, 8],
  ['coin', 7, 13],
  ['beam', 32, 4],
  ['dot', 1, 1],
  ['crate', 20, 20],
];

async function framesOf(sizes: [string, number, number][]): Promise<{ inputs: AtlasFrameInput[]; sources: Map<string, Pixels> }> {
  const sources = new Map(sizes.map(([name, width, height], index) => [name, makePixels(width, height, noisy(index + 1))] as const));
  const inputs = await Promise.all([...sources].map(async ([name, pixels]) => ({ name, bytes: await toPng(pixels) })));
  return { inputs, sources };
}

describe('packAtlas', () => {
  it('puts every frame at the rectangle its JSON says, in the TexturePacker JSON-hash format', async () => {
    const { inputs, sources } = await framesOf(SIZES);
    const { png, data } = await packAtlas(inputs, { padding: 2, extrude: 1, maxSize: 256, image: 'hero.png' });
    const atlas = await readPixels(png);
    expect(atlas.format).toBe('png');
    expect(data.meta).toEqual({
      app: 'assetgen',
      version: '1.0',
      image: 'hero.png',
      format: 'RGBA8888',
      size: { w: atlas.width, h: atlas.height },
      scale: '1',
    });
    for (const side of [atlas.width, atlas.height]) expect(side & (side - 1)).toBe(0);
    expect(Object.keys(data.frames)).toEqual(['beam', 'coin', 'crate', 'dot', 'hero/idle-0', 'hero/idle-1']);
    expect(data.frames.coin).toEqual({
      frame: { ...data.frames.coin!.frame, w: 7, h: 13 },
      rotated: false,
      trimmed: false,
      spriteSourceSize: { x: 0, y: 0, w: 7, h: 13 },
      sourceSize: { w: 7, h: 13 },
    });
    checkAtlas(atlas, data, sources, 2, 1);
    expect(JSON.parse(atlasJson(data))).toEqual(data);
  });

  it.each([
    [0, 0],
    [4, 0],
    [0, 3],
    [3, 2],
  ])('honours padding %i and extrude %i', async (padding, extrude) => {
    const { inputs, sources } = await framesOf(SIZES);
    const { png, data } = await packAtlas(inputs, { padding, extrude, maxSize: 256 });
    checkAtlas(await readPixels(png), data, sources, padding, extrude);
  });

  it('gives identical bytes for the same frames, in any order', async () => {
    const { inputs } = await framesOf(SIZES);
    const first = await packAtlas(inputs, { maxSize: 256 });
    const second = await packAtlas([...inputs].reverse(), { maxSize: 256 });
    const third = await packAtlas([inputs[2]!, inputs[0]!, inputs[5]!, inputs[1]!, inputs[4]!, inputs[3]!], { maxSize: 256 });
    expect(second.png.equals(first.png)).toBe(true);
    expect(third.png.equals(first.png)).toBe(true);
    expect(atlasJson(second.data)).toBe(atlasJson(first.data));
  });

  it('with trim, packs frames without their transparent borders and says where they sat', async () => {
    const framed = makePixels(12, 9, (x, y) => (x >= 2 && x < 7 && y >= 3 && y < 8 ? [x * 20, y * 20, 99, 255] : [0, 0, 0, 0]));
    const full = makePixels(5, 5, noisy(9));
    const inputs = [
      { name: 'framed', bytes: await toPng(framed) },
      { name: 'full', bytes: await toPng(full) },
    ];
    const { png, data } = await packAtlas(inputs, { trim: true, maxSize: 64 });
    const atlas = await readPixels(png);
    const entry = data.frames.framed!;
    expect(entry).toMatchObject({ trimmed: true, spriteSourceSize: { x: 2, y: 3, w: 5, h: 5 }, sourceSize: { w: 12, h: 9 } });
    expect(region(atlas, entry.frame.x, entry.frame.y, 5, 5).equals(region(framed, 2, 3, 5, 5))).toBe(true);
    expect(data.frames.full).toMatchObject({ trimmed: false, spriteSourceSize: { x: 0, y: 0, w: 5, h: 5 }, sourceSize: { w: 5, h: 5 } });
  });

  it('packs 300 frames of mixed sizes without overlap, quickly', async () => {
    const sizes = Array.from({ length: 300 }, (_, i): [string, number, number] => [
      `f${String(i).padStart(3, '0')}`,
      4 + ((i * 7) % 29),
      4 + ((i * 13) % 23),
    ]);
    const { inputs, sources } = await framesOf(sizes);
    const { png, data } = await packAtlas(inputs, { padding: 1, extrude: 1, maxSize: 1024 });
    expect(Object.keys(data.frames)).toHaveLength(300);
    checkAtlas(await readPixels(png), data, sources, 1, 1);
  });
});

describe('packAtlas refuses', () => {
  const refusal = async (frames: AtlasFrameInput[], options = {}) => {
    const error = await packAtlas(frames, options).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ImagingError);
    return error as ImagingError;
  };

  it('frames that do not fit in maxSize, naming the frame too large on its own', async () => {
    const { inputs } = await framesOf([['giant', 40, 40]]);
    const alone = await refusal(inputs, { maxSize: 32 });
    expect(alone.code).toBe('atlas_too_small');
    expect(alone.message).toBe(
      'the frames do not fit in a 32×32 atlas (frame "giant" is 40×40, with extrude 1): raise maxSize, lower padding or extrude, or split the sheet',
    );
    const { inputs: many } = await framesOf(Array.from({ length: 20 }, (_, i): [string, number, number] => [`tile${i}`, 16, 16]));
    const crowded = await refusal(many, { maxSize: 64 });
    expect(crowded.message).toMatch(/^the frames do not fit in a 64×64 atlas \(20 frames take 8,000 pixels/);
    // The same frames fit with room to spare.
    expect((await packAtlas(many, { maxSize: 128 })).data.meta.size).toEqual({ w: 128, h: 128 });
  });

  it('no frames, two frames of one name, a non-image, bad options', async () => {
    const { inputs } = await framesOf([['a', 2, 2]]);
    expect((await refusal([])).message).toBe('an atlas needs at least one frame');
    expect((await refusal([...inputs, { ...inputs[0]! }])).message).toBe('two frames are named "a"');
    expect((await refusal([{ name: 'bad', bytes: Buffer.from('nope') }])).message).toBe('frame "bad" is not an image sharp can read');
    expect((await refusal([{ name: '', bytes: inputs[0]!.bytes }])).code).toBe('bad_atlas_input');
    expect((await refusal(inputs, { maxSize: 1000 })).message).toBe("the atlas's maxSize must be a power of two up to 16384, got 1000");
    expect((await refusal(inputs, { padding: -1 })).message).toBe("the atlas's padding must be a whole number from 0 to 64, got -1");
    expect((await refusal(inputs, { extrude: 1.5 })).code).toBe('bad_atlas_input');
  });
});
