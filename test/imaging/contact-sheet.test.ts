// The contact sheet and the numbers beside each take, on real pixels: the PNG decoded by sharp, each
// label read back from its pixels as a number, the picked take's frame found by its colour, and the
// sheet within the limit MCP image content follows.
import { describe, expect, it } from 'vitest';
import { CONTACT_SHEET_MAX_TAKES, renderContactSheet, SHEET_COLOURS, type SheetTake } from '../../src/imaging/contact-sheet.js';
import { INLINE_IMAGE_LIMITS } from '../../src/imaging/limits.js';
import { COLOUR_COUNT_CAP, describeMetrics, measurePixels, measureTake } from '../../src/imaging/take-metrics.js';
import { makePixels, noisy, readLabel, readPixels, toPng, type RGBA } from './pixels.js';

const solid = (colour: RGBA) => () => colour;
const hex = (colour: number): string => (colour >>> 0).toString(16).padStart(8, '0');

describe('take metrics', () => {
  it('measures the canvas, the drawn part, the colours and the transparency of a sprite', async () => {
    // A 64×48 canvas, transparent but for a 20×10 block of two colours at (5, 7).
    const sprite = makePixels(64, 48, (x, y) =>
      x >= 5 && x < 25 && y >= 7 && y < 17 ? (x < 15 ? [200, 30, 30, 255] : [30, 30, 200, 255]) : [0, 0, 0, 0],
    );
    const { metrics } = await measureTake(await toPng(sprite), 'take 1');
    expect(metrics).toEqual({
      width: 64,
      height: 48,
      opaqueBounds: { left: 5, top: 7, width: 20, height: 10 },
      fill: 0.065,
      colours: { count: 3, atLeast: false },
      transparency: true,
    });
    expect(describeMetrics(metrics)).toBe('64×48 · drawn 20×10 (7% of the canvas) · 3 colours · has transparency');
  });

  it('counts colours up to a cap and says "at least" past it; an opaque picture has no transparency', () => {
    const photo = makePixels(100, 100, (x, y) => [x, y, (x * y) % 256, 255]);
    expect(measurePixels(photo)).toMatchObject({
      opaqueBounds: { left: 0, top: 0, width: 100, height: 100 },
      fill: 1,
      colours: { count: COLOUR_COUNT_CAP, atLeast: true },
      transparency: false,
    });
    expect(describeMetrics(measurePixels(photo))).toContain(`≥${COLOUR_COUNT_CAP} colours`);
    const empty = measurePixels(makePixels(8, 8, solid([0, 0, 0, 0])));
    expect(empty).toMatchObject({ opaqueBounds: null, fill: 0, colours: { count: 1, atLeast: false }, transparency: true });
    expect(describeMetrics(empty)).toContain('nothing drawn');
  });
});

describe('the contact sheet', () => {
  const COLOURS: RGBA[] = [
    [220, 40, 40, 255],
    [40, 180, 60, 255],
    [40, 60, 220, 255],
    [230, 200, 30, 255],
    [160, 40, 200, 255],
  ];

  it('draws each take under a label that reads back as its number, frames the picked one, and shows each take where the layout says', async () => {
    // Take 4's file could not be read: its cell is there, crossed out.
    const takes: SheetTake[] = COLOURS.map((colour, index) => ({
      k: index + 1,
      picked: index + 1 === 3,
      image: index + 1 === 4 ? null : makePixels(32, 32, (x, y) => (x < 4 && y < 4 ? [0, 0, 0, 0] : colour)),
    }));
    const { png, layout } = await renderContactSheet(takes);
    const sheet = await readPixels(png);
    expect(sheet.format).toBe('png');
    expect([sheet.width, sheet.height]).toEqual([layout.width, layout.height]);
    expect(Math.max(sheet.width, sheet.height)).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxSide);
    expect(png.length).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxBytes);
    expect(layout.takes.map((take) => take.k)).toEqual([1, 2, 3, 4, 5]);
    expect(layout.omitted).toEqual([]);

    const pixel = (x: number, y: number): string =>
      sheet.data.subarray((y * sheet.width + x) * 4, (y * sheet.width + x) * 4 + 4).toString('hex');
    for (const [index, take] of layout.takes.entries()) {
      expect(readLabel(sheet, take.label), `label of take ${take.k}`).toBe(String(take.k));
      // The frame: the cell's edge is green for the picked take only.
      const edge = pixel(take.cell.x + take.cell.w - 1, take.cell.y + take.cell.h - 1);
      expect(edge === hex(SHEET_COLOURS.picked), `take ${take.k}'s frame`).toBe(take.k === 3);
      expect(take.picked).toBe(take.k === 3);
      // The picture fills its box (square takes): its centre is the take's colour, its transparent
      // corner shows the checkerboard.
      const centre = pixel(take.image.x + Math.floor(take.image.w / 2), take.image.y + Math.floor(take.image.h / 2));
      if (take.k === 4) {
        expect(take.missing).toBe(true);
        expect(centre).toBe(hex(SHEET_COLOURS.missingInk));
      } else {
        expect(centre).toBe(Buffer.from(COLOURS[index]!).toString('hex'));
        expect(pixel(take.image.x, take.image.y)).toBe(hex(SHEET_COLOURS.checkerLight));
      }
      // Label and picture lie inside the cell, and cells do not overlap.
      expect(take.label.y + take.label.h).toBeLessThanOrEqual(take.image.y);
      expect(take.image.y + take.image.h).toBeLessThanOrEqual(take.cell.y + take.cell.h);
      for (const other of layout.takes.slice(index + 1)) {
        const apart =
          other.cell.x >= take.cell.x + take.cell.w ||
          other.cell.y >= take.cell.y + take.cell.h ||
          take.cell.x >= other.cell.x + other.cell.w ||
          take.cell.y >= other.cell.y + other.cell.h;
        expect(apart, `cells ${take.k} and ${other.k}`).toBe(true);
      }
    }
    // The same takes give the same bytes.
    expect((await renderContactSheet(takes)).png.equals(png)).toBe(true);
  });

  it('stays within the byte limit with large noisy takes (smaller pictures until it fits), labels still readable', async () => {
    const takes: SheetTake[] = Array.from({ length: 9 }, (_, index) => ({
      k: index + 1,
      picked: index === 0,
      image: makePixels(400, 400, (x, y) => {
        const [r, g, b] = noisy(index + 1)(x * 7 + y, y * 13 + x);
        return [r, g, (b * 31 + x * y) % 256, 255];
      }),
    }));
    // A tighter limit than MCP's, so the test makes the encoder shrink the pictures at least once.
    const limits = { maxSide: 768, maxBytes: 400 * 1024 };
    const { png, layout } = await renderContactSheet(takes, limits);
    expect(png.length).toBeLessThanOrEqual(limits.maxBytes);
    expect(layout.thumb).toBeLessThan(230);
    const sheet = await readPixels(png);
    for (const take of layout.takes) expect(readLabel(sheet, take.label)).toBe(String(take.k));
  });

  it('numbers of several digits read back; past the maximum, takes are listed as omitted', async () => {
    const takes: SheetTake[] = Array.from({ length: CONTACT_SHEET_MAX_TAKES + 4 }, (_, index) => ({
      k: index * 37 + 1,
      picked: index === 7,
      image: makePixels(16, 16, solid([index * 6, 100, 255 - index * 6, 255])),
    }));
    const { png, layout } = await renderContactSheet(takes);
    expect(layout.takes).toHaveLength(CONTACT_SHEET_MAX_TAKES);
    expect(layout.omitted).toEqual(takes.slice(CONTACT_SHEET_MAX_TAKES).map((take) => take.k));
    expect(Math.max(layout.width, layout.height)).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxSide);
    const sheet = await readPixels(png);
    const read = layout.takes.map((take) => readLabel(sheet, take.label));
    expect(read).toEqual(takes.slice(0, CONTACT_SHEET_MAX_TAKES).map((take) => String(take.k)));
    expect(read).toContain('1296');
  });
});
