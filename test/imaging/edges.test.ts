// Clean edges on real pixels (PNG fixtures made here, run through applyPostSteps, decoded back):
// `key` on an anti-aliased edge gives the documented alpha and colour to the byte; `bleed` gives each
// transparent pixel the colour of its nearest visible one and never touches an alpha byte; `extrude`
// grows the canvas with the edges repeated. And the parser's spellings and order rules.
import { paletteEntries } from '../../src/imaging/palette.js';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { applyPostSteps } from '../../src/imaging/post.js';
import { describePostSteps, parsePostSteps } from '../../src/imaging/post-steps.js';
import { rejection } from './post-rejection.js';
import { coloursOf, makePixels, noisy, pixelAt, readPixels, toPng, type Pixels, type RGBA } from './pixels.js';

const run = async (pixels: Pixels, post: unknown) => {
  const result = await applyPostSteps(await toPng(pixels), parsePostSteps(post));
  return { result, pixels: await readPixels(result.bytes) };
};
const alphaOf = (pixels: Pixels, x: number, y: number): number => pixels.data[(y * pixels.width + x) * 4 + 3]!;
const rgbOf = (pixels: Pixels, x: number, y: number): string => pixelAt(pixels, x, y).slice(0, 6);
const alphaBytes = (pixels: Pixels): number[] => [...pixels.data].filter((_, index) => index % 4 === 3);

describe('key', () => {
  const MAGENTA: RGBA = [255, 0, 255, 255];
  // One row across an anti-aliased edge of a white sprite on magenta: the key, JPEG-like noise near
  // it, the edge's blends (the white's share 19%, 25%, 50%), white; then a half-transparent blend.
  const row: RGBA[] = [
    MAGENTA,
    [250, 20, 245, 255],
    [255, 48, 255, 255],
    [255, 64, 255, 255],
    [255, 128, 255, 255],
    [255, 255, 255, 255],
    [255, 64, 255, 200],
  ];
  const edge = makePixels(row.length, 2, (x) => row[x]!);

  it('makes the key colour and its neighbourhood transparent, and the edge partly so, its spill taken out (exact figures)', async () => {
    const { pixels } = await run(edge, [{ key: { color: '#FF00FF', tolerance: 32, softness: 64 } }]);
    expect([0, 1, 2, 3, 4, 5, 6].map((x) => pixelAt(pixels, x, 0))).toEqual([
      '00000000', // d 0 ≤ 32: gone
      '00000000', // d 20 ≤ 32: gone
      'ffc0ff40', // d 48: f = 16/64, alpha round(255·0.25) = 64, green 0 + round(48·64/16) = 192
      'ff80ff80', // d 64: f = 32/64, alpha round(127.5) = 128, green round(64·64/32) = 128
      'ff80ffff', // d 128 ≥ 32 + 64: as it was
      'ffffffff',
      'ff80ff64', // alpha 200 · 0.5 = 100
    ]);
    // Drawn over the key colour, a partly transparent pixel gives the source pixel back.
    const over = (x: number, channel: number) =>
      Math.round((pixels.data[x * 4 + channel]! * alphaOf(pixels, x, 0) + MAGENTA[channel]! * (255 - alphaOf(pixels, x, 0))) / 255);
    expect([over(3, 0), over(3, 1), over(3, 2)]).toEqual([255, 64, 255]);
  });

  it('clamps the unmixed colour to 0-255; tolerance 0 keeps near colours; softness 0 is a hard edge', async () => {
    const green = makePixels(3, 1, (x) => [[40, 215, 0, 255] as RGBA, [0, 255, 0, 255] as RGBA, [0, 250, 0, 255] as RGBA][x]!);
    const soft = await run(green, [{ key: { color: [0, 255, 0], tolerance: 32, softness: 64 } }]);
    // d 40, f = 8/64: red 0 + round(40·8) = 320 → 255, green 255 − 320 → 0, alpha round(31.875) = 32.
    expect(pixelAt(soft.pixels, 0, 0)).toBe('ff000020');
    const hard = await run(green, [{ key: { color: '#0f0', tolerance: 0, softness: 0 } }]);
    expect([0, 1, 2].map((x) => pixelAt(hard.pixels, x, 0))).toEqual(['28d700ff', '00000000', '00fa00ff']);
  });

  it('is deterministic: the same bytes every run', async () => {
    const post = [{ key: { color: '#ff00ff' } }, 'trim', 'bleed'];
    const first = await run(edge, post);
    const second = await run(edge, post);
    expect(first.result.bytes.equals(second.result.bytes)).toBe(true);
  });
});

/**
 * Every transparent pixel within `radius` of a visible one has the colour of one of its nearest
 * visible pixels (the larger of the x and y distances); farther ones, and visible ones, are as they were.
 */
function expectNearestColours(source: Pixels, bled: Pixels, radius: number): void {
  const sources: { x: number; y: number; rgb: string }[] = [];
  for (let y = 0; y < source.height; y++)
    for (let x = 0; x < source.width; x++) if (alphaOf(source, x, y) > 0) sources.push({ x, y, rgb: rgbOf(source, x, y) });
  expect(sources.length).toBeGreaterThan(0);
  for (let y = 0; y < source.height; y++)
    for (let x = 0; x < source.width; x++) {
      if (alphaOf(source, x, y) > 0) {
        expect(pixelAt(bled, x, y)).toBe(pixelAt(source, x, y));
        continue;
      }
      const distance = (one: { x: number; y: number }) => Math.max(Math.abs(one.x - x), Math.abs(one.y - y));
      const nearest = Math.min(...sources.map(distance));
      const colours = sources.filter((one) => distance(one) === nearest).map((one) => one.rgb);
      if (nearest <= radius) expect(colours, `(${x}, ${y})`).toContain(rgbOf(bled, x, y));
      else expect(rgbOf(bled, x, y), `(${x}, ${y})`).toBe(rgbOf(source, x, y));
    }
}

describe('bleed', () => {
  // Transparent pixels holding a colour of their own (0x09), around two opaque pixels and a faint one.
  const RED: RGBA = [200, 10, 10, 255];
  const BLUE: RGBA = [10, 10, 200, 255];
  const FAINT_GREEN: RGBA = [10, 200, 10, 40];
  const source = makePixels(16, 9, (x, y) => {
    if (x === 3 && y === 3) return RED;
    if (x === 9 && y === 5) return BLUE;
    if (x === 5 && y === 7) return FAINT_GREEN;
    return [9, 9, 9, 0];
  });
  const visible = (pixels: Pixels) => {
    const found: { x: number; y: number; rgb: string }[] = [];
    for (let y = 0; y < pixels.height; y++)
      for (let x = 0; x < pixels.width; x++) if (alphaOf(pixels, x, y) > 0) found.push({ x, y, rgb: rgbOf(pixels, x, y) });
    return found;
  };

  it("gives the edge's transparent neighbours the nearest visible colour, alpha bytes unchanged", async () => {
    const { pixels } = await run(source, [{ bleed: { radius: 3 } }]);
    expect(alphaBytes(pixels)).toEqual(alphaBytes(source));
    // Beside each visible pixel, its own colour.
    for (const [x, y] of [
      [2, 3],
      [4, 3],
      [3, 2],
      [3, 4],
      [2, 2],
      [4, 4],
    ])
      expect(rgbOf(pixels, x!, y!)).toBe('c80a0a');
    for (const [x, y] of [
      [8, 5],
      [10, 5],
      [9, 4],
      [9, 6],
    ])
      expect(rgbOf(pixels, x!, y!)).toBe('0a0ac8');
    expect(rgbOf(pixels, 5, 8)).toBe('0ac80a'); // a faint pixel is visible: it gives its colour too
    expectNearestColours(source, pixels, 3);
    // Between red and blue (distance 3 from red, 3 from blue at (6,4)): left, right, above, below, then the diagonals decide.
    expect(rgbOf(pixels, 6, 4)).toBe('c80a0a');
  });

  it('on a large sparse image (rows of 61 pixels, not whole bytes), the same rule holds for every pixel', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const sparse = makePixels(61, 47, () =>
      random() < 0.01 ? [Math.floor(random() * 256), Math.floor(random() * 256), Math.floor(random() * 256), 255] : [1, 2, 3, 0],
    );
    const { pixels } = await run(sparse, [{ bleed: 5 }]);
    expect(alphaBytes(pixels)).toEqual(alphaBytes(sparse));
    expectNearestColours(sparse, pixels, 5);
  });

  it('copies colours only: after palette, the visible colours are the palette; an image with nothing visible is left alone', async () => {
    const picture = makePixels(12, 12, (x, y) => (x > 2 && x < 9 && y > 2 && y < 9 ? noisy(3)(x, y) : [0, 0, 0, 0]));
    const { pixels } = await run(picture, [{ palette: 6 }, 'bleed']);
    const quantised = await run(picture, [{ palette: 6 }]);
    const visibleColours = (image: Pixels) => new Set(visible(image).map((one) => one.rgb));
    expect(visibleColours(pixels)).toEqual(visibleColours(quantised.pixels));
    expect(new Set(visible(pixels).map((one) => one.rgb)).size).toBeLessThanOrEqual(6);
    const rgbs = new Set<string>();
    for (let y = 0; y < 12; y++) for (let x = 0; x < 12; x++) rgbs.add(rgbOf(pixels, x, y));
    expect([...rgbs].every((rgb) => visibleColours(pixels).has(rgb))).toBe(true);
    expect(alphaBytes(pixels)).toEqual(alphaBytes(quantised.pixels));
    const empty = makePixels(4, 4, () => [7, 7, 7, 0]);
    expect(coloursOf((await run(empty, ['bleed'])).pixels)).toEqual(new Set(['07070700']));
  });

  it('extrude after palette: the border copies palette colours, and the PNG is still written indexed', async () => {
    const picture = makePixels(10, 10, (x, y) => (x > 1 && x < 8 && y > 1 && y < 8 ? noisy(5)(x, y) : [0, 0, 0, 0]));
    const quantised = await run(picture, [{ palette: 4 }]);
    const result = await run(picture, [{ palette: 4 }, { extrude: 2 }]);
    expect([result.pixels.width, result.pixels.height]).toEqual([14, 14]);
    expect(coloursOf(result.pixels)).toEqual(coloursOf(quantised.pixels));
    expect(paletteEntries(result.result.bytes)).toBeLessThanOrEqual(4);
  });

  it('after key on an anti-aliased sprite: no transparent pixel beside the sprite keeps the key or black', async () => {
    // Drawn by librsvg (through sharp), anti-aliased as an image model's edges are.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#ff00ff"/><circle cx="9.7" cy="10.2" r="6.3" fill="#ffc828"/></svg>`;
    const disc = await readPixels(await sharp(Buffer.from(svg)).png().toBuffer());
    expect(disc.data.length).toBe(20 * 20 * 4);
    const { pixels, result } = await run(disc, [{ key: '#ff00ff' }, 'trim', { bleed: 2 }]);
    expect(result.trim).toMatchObject({ sourceWidth: 20, sourceHeight: 20 });
    const alphas = alphaBytes(pixels);
    expect(alphas.some((alpha) => alpha > 0 && alpha < 255)).toBe(true);
    for (let y = 0; y < pixels.height; y++)
      for (let x = 0; x < pixels.width; x++)
        if (alphaOf(pixels, x, y) === 0) expect(['ff00ff', '000000'], `(${x}, ${y})`).not.toContain(rgbOf(pixels, x, y));
  });
});

describe('extrude', () => {
  it('grows the canvas by N on every side, each border pixel the nearest edge pixel', async () => {
    const source = makePixels(3, 2, noisy(5));
    const { result, pixels } = await run(source, [{ extrude: 2 }]);
    expect([result.width, result.height, pixels.width, pixels.height]).toEqual([7, 6, 7, 6]);
    const clamp = (value: number, max: number) => Math.min(max, Math.max(0, value));
    for (let y = 0; y < 6; y++)
      for (let x = 0; x < 7; x++) expect(pixelAt(pixels, x, y)).toBe(pixelAt(source, clamp(x - 2, 2), clamp(y - 2, 1)));
  });

  it('after trim: the trim record stays in the pixels trim saw; before pot: the padded sides are powers of two', async () => {
    const source = makePixels(10, 10, (x, y) => (x >= 2 && x < 7 && y >= 4 && y < 6 ? [1, 2, 3, 255] : [0, 0, 0, 0]));
    const { result } = await run(source, ['trim', 'extrude', 'pot']);
    expect(result.trim).toEqual({ left: 2, top: 4, width: 5, height: 2, sourceWidth: 10, sourceHeight: 10 });
    expect([result.width, result.height]).toEqual([8, 4]);
  });
});

describe('parsing key, bleed and extrude', () => {
  it('fills in every default, one canonical colour for every spelling', () => {
    expect(parsePostSteps([{ key: '#F0F' }, 'extrude', 'bleed'])).toEqual([
      { kind: 'key', color: '#ff00ff', tolerance: 32, softness: 64 },
      { kind: 'extrude', pixels: 1 },
      { kind: 'bleed', radius: 8 },
    ]);
    expect(parsePostSteps([{ key: { color: [255, 0, 255], tolerance: 0 } }, { extrude: 4 }, { bleed: { radius: 64 } }])).toEqual([
      { kind: 'key', color: '#ff00ff', tolerance: 0, softness: 64 },
      { kind: 'extrude', pixels: 4 },
      { kind: 'bleed', radius: 64 },
    ]);
    expect(parsePostSteps([{ bleed: 2 }, { format: 'webp' }])).toEqual([
      { kind: 'bleed', radius: 2 },
      { kind: 'format', format: 'webp' },
    ]);
    expect(describePostSteps(parsePostSteps([{ key: { color: '#00ff00', tolerance: 10, softness: 20 } }, { extrude: 2 }, 'bleed']))).toBe(
      'key #00ff00 (tolerance 10, softness 20) · extrude 2px · bleed 8px',
    );
  });

  it.each([
    [
      [{ key: { color: null } }],
      [0, 'key', 'color'],
      /^post\[0\]\.key\.color must be a colour .*, got null \(quote it: a # unquoted starts a YAML comment\)$/,
    ],
    [[{ key: 'magenta' }], [0, 'key'], /^post\[0\]\.key must be a colour '#rrggbb', '#rgb' or \[r, g, b\], got "magenta"$/],
    [[{ key: { color: '#ff00ff', tolerance: 300 } }], [0, 'key', 'tolerance'], /tolerance must be a whole number from 0 to 255, got 300$/],
    [[{ key: { color: [255, 0] } }], [0, 'key', 'color'], /got a list$/],
    [[{ key: { colour: '#fff' } }], [0, 'key', 'colour'], /unknown key colour; the keys are color, tolerance, softness$/],
    [[{ bleed: 0 }], [0, 'bleed'], /^post\[0\]\.bleed must be a whole number from 1 to 64, got 0$/],
    [[{ extrude: 33 }], [0, 'extrude'], /^post\[0\]\.extrude must be a whole number from 1 to 32, got 33$/],
    [['trim', { key: '#fff' }], [1], /^post\[1\]: key must come before trim \(post\[0\]\): trim cuts away the transparency key makes$/],
    [
      ['bleed', { palette: 8 }],
      [0],
      /^post\[0\]: bleed must come after palette \(post\[1\]\): the quantiser drops the colour of transparent pixels$/,
    ],
    [['bleed', 'pot'], [0], /bleed must come after pot \(post\[1\]\)/],
    [['pot', 'extrude'], [1], /^post\[1\]: extrude must come before pot \(post\[0\]\): the sides would no longer be powers of two$/],
    [['extrude', 'trim'], [0], /extrude must come after trim/],
    [[{ palette: 8 }, { key: '#fff' }], [1], /^post\[1\]: key must come before palette \(post\[0\]\): it would add colours back$/],
  ])('rejects %j at %j', (post, path, message) => {
    const error = rejection(post);
    expect(error.path).toEqual(path);
    expect(error.message).toMatch(message);
  });
});
