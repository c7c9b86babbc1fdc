// The `slice` step on real pixels: its manifest forms (every default filled in, every mistake named
// at its path), the cells of a grid and of a strip cut at its gaps (transparent or a key colour),
// and the frames applyPostStepsToFrames makes, each trimmed with its offset in its own cell.
import { describe, expect, it } from 'vitest';
import { ImagingError } from '../../src/imaging/errors.js';
import { applyPostStepsToFrames } from '../../src/imaging/post.js';
import { describePostSteps, parsePostSteps } from '../../src/imaging/post-steps.js';
import { rejection } from './post-rejection.js';
import { sliceCells, type SliceSpec } from '../../src/imaging/slice.js';
import { makePixels, readPixels, toPng, type RGBA } from './pixels.js';
import { MAGENTA, pose, poseColour, STRIP, TRANSPARENT, walkStrip } from '../support/walk-strip.js';

async function imagingError(work: () => Promise<unknown>): Promise<ImagingError> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(ImagingError);
    return error as ImagingError;
  }
  throw new Error('no error');
}

describe('slice in a post list', () => {
  it('reads a grid and gaps, every default filled in', () => {
    expect(parsePostSteps([{ slice: { columns: 4, rows: 2 } }, 'trim'])).toEqual([
      { kind: 'slice', by: 'grid', columns: 4, rows: 2 },
      { kind: 'trim', threshold: 0 },
    ]);
    expect(parsePostSteps([{ slice: { columns: 8 } }])).toEqual([{ kind: 'slice', by: 'grid', columns: 8, rows: 1 }]);
    expect(parsePostSteps([{ slice: { rows: 3, columns: 3, count: 7 } }])).toEqual([
      { kind: 'slice', by: 'grid', columns: 3, rows: 3, count: 7 },
    ]);
    expect(parsePostSteps([{ slice: { gaps: 'transparent' } }])).toEqual([
      { kind: 'slice', by: 'gaps', background: 'transparent', tolerance: 0, minGap: 1 },
    ]);
    expect(parsePostSteps([{ slice: { gaps: '#FF00FF', tolerance: 24, minGap: 2, count: 8 } }, { format: 'webp' }])).toEqual([
      { kind: 'slice', by: 'gaps', background: '#ff00ff', tolerance: 24, minGap: 2, count: 8 },
      { kind: 'format', format: 'webp' },
    ]);
    expect(describePostSteps(parsePostSteps([{ slice: { columns: 4, rows: 2 } }, 'trim']))).toBe('slice 4×2 · trim');
    expect(describePostSteps(parsePostSteps([{ slice: { gaps: '#ff00ff', tolerance: 8, count: 8 } }]))).toBe(
      'slice at #ff00ff gaps ±8 (8 frames)',
    );
  });

  it.each([
    [['slice'], [0, 'slice'], /^post\[0\]\.slice must be \{columns, rows\} \(a grid\), or \{gaps: transparent\}/],
    [[{ slice: {} }], [0, 'slice'], /^post\[0\]\.slice needs columns, rows or both \(a grid\), or gaps$/],
    [[{ slice: { columns: 0 } }], [0, 'slice', 'columns'], /columns must be a whole number from 1 to 256, got 0$/],
    [[{ slice: { columns: 40, rows: 40 } }], [0, 'slice'], /40 × 40 is 1600 frames; the most is 1024$/],
    [[{ slice: { columns: 4, rows: 2, count: 9 } }], [0, 'slice', 'count'], /count is 9, more than the grid's 8 cells$/],
    [[{ slice: { columns: 4, size: 2 } }], [0, 'slice', 'size'], /unknown key size; the keys are columns, rows, count$/],
    // `gaps: #ff00ff` unquoted is a YAML comment: null arrives.
    [
      [{ slice: { gaps: null } }],
      [0, 'slice', 'gaps'],
      /gaps must be transparent or a colour "#rrggbb" \(quoted: in YAML # starts a comment\), got null$/,
    ],
    [[{ slice: { gaps: 'magenta' } }], [0, 'slice', 'gaps'], /got "magenta"$/],
    [[{ slice: { gaps: 'transparent', tolerance: 300 } }], [0, 'slice', 'tolerance'], /from 0 to 255, got 300$/],
    [
      [{ slice: { gaps: 'transparent', columns: 2 } }],
      [0, 'slice', 'columns'],
      /unknown key columns; the keys are gaps, tolerance, minGap, count$/,
    ],
    [['trim', { slice: { columns: 2 } }], [0], /^post\[0\]: trim must come after slice \(post\[1\]\): it runs on each frame$/],
    [[{ palette: 8 }, { slice: { columns: 2 } }], [0], /palette must come after slice/],
  ])('refuses %j at %j', (post, path, message) => {
    const error = rejection(post);
    expect(error.path).toEqual(path);
    expect(error.message).toMatch(message);
  });
});

describe('sliceCells', () => {
  const image = (width: number, height: number, colour: (x: number, y: number) => RGBA) => makePixels(width, height, colour);

  it('a grid: equal cells, left to right then down, the pixel left over in the last; count takes the first N', () => {
    const cells = sliceCells(
      image(10, 4, () => [0, 0, 0, 255]),
      { by: 'grid', columns: 3, rows: 2 },
    );
    expect(cells.map((cell) => [cell.left, cell.top, cell.width, cell.height])).toEqual([
      [0, 0, 3, 2],
      [3, 0, 3, 2],
      [6, 0, 4, 2],
      [0, 2, 3, 2],
      [3, 2, 3, 2],
      [6, 2, 4, 2],
    ]);
    expect(
      sliceCells(
        image(10, 4, () => [0, 0, 0, 255]),
        { by: 'grid', columns: 3, rows: 2, count: 4 },
      ),
    ).toHaveLength(4);
  });

  it('gaps: cut in the middle of each background run, the cells tiling the image; minGap and tolerance', () => {
    // Three bodies in a row: x 2-4, 7-7, 12-15 (gaps of 2 and 4), on a 20×6 transparent strip.
    const bodies = (x: number) => (x >= 2 && x <= 4) || x === 7 || (x >= 12 && x <= 15);
    const strip = image(20, 6, (x, y) => (bodies(x) && y >= 1 && y <= 4 ? [200, 10, 10, 255] : [0, 0, 0, 0]));
    const gaps: SliceSpec = { by: 'gaps', background: 'transparent', tolerance: 0, minGap: 1 };
    expect(sliceCells(strip, gaps).map((cell) => [cell.left, cell.width, cell.top, cell.height])).toEqual([
      [0, 6, 0, 6],
      [6, 4, 0, 6],
      [10, 10, 0, 6],
    ]);
    // A gap narrower than minGap does not cut: the first two bodies are one frame.
    expect(sliceCells(strip, { ...gaps, minGap: 3 }).map((cell) => [cell.left, cell.width])).toEqual([
      [0, 10],
      [10, 10],
    ]);
    // A faint haze (alpha 6) in the gaps: a background only within the tolerance.
    const hazy = image(20, 6, (x, y) => (bodies(x) && y >= 1 && y <= 4 ? [200, 10, 10, 255] : [0, 0, 0, 6]));
    expect(sliceCells(hazy, gaps)).toHaveLength(1);
    expect(sliceCells(hazy, { ...gaps, tolerance: 6 })).toHaveLength(3);
  });

  it('refuses what it cannot cut, saying why', async () => {
    const empty = image(8, 8, () => [0, 0, 0, 0]);
    expect(
      (await imagingError(async () => sliceCells(empty, { by: 'gaps', background: 'transparent', tolerance: 0, minGap: 1 }))).message,
    ).toBe('every pixel of the image (8×8) is the background (transparent): nothing to cut');
    expect((await imagingError(async () => sliceCells(empty, { by: 'grid', columns: 9, rows: 1 }))).message).toBe(
      'the image is 8×8: too small for a 9×1 grid',
    );
    const strip = walkStrip(TRANSPARENT);
    const error = await imagingError(async () =>
      sliceCells(strip, { by: 'gaps', background: 'transparent', tolerance: 0, minGap: 1, count: 7 }),
    );
    expect(error.code).toBe('slice_failed');
    expect(error.message).toMatch(/^the image \(96×48\) has 8 frames between its gaps, not the 7 slice\.count asks for/);
  });
});

describe('applyPostStepsToFrames', () => {
  it('a 4×2 grid then trim: 8 frames, each the pose of its cell, its trim record where it sat in the cell', async () => {
    const png = await toPng(walkStrip(TRANSPARENT));
    const results = await applyPostStepsToFrames(png, parsePostSteps([{ slice: { columns: 4, rows: 2 } }, 'trim']));
    expect(results).toHaveLength(8);
    for (const [index, result] of results.entries()) {
      const n = index + 1;
      const body = pose(n);
      expect(result.trim, `frame ${n}`).toEqual({ ...body, colour: undefined, sourceWidth: STRIP.cell, sourceHeight: STRIP.cell });
      const pixels = await readPixels(result.bytes);
      expect([pixels.width, pixels.height]).toEqual([body.width, body.height]);
      expect([...pixels.data.subarray(0, 4)]).toEqual([250, 250, 210, 255]); // the mark at the body's top left
      const last = (body.width * body.height - 1) * 4;
      expect([...pixels.data.subarray(last, last + 4)]).toEqual([...body.colour]);
    }
  });

  it('a magenta strip cut at its key colour: the 8 poses in order; the frames keep the background a key step removes', async () => {
    const png = await toPng(walkStrip(MAGENTA));
    const results = await applyPostStepsToFrames(png, parsePostSteps([{ slice: { gaps: '#ff00ff', count: 8 } }]));
    expect(results).toHaveLength(8);
    for (const [index, result] of results.entries()) {
      const pixels = await readPixels(result.bytes);
      const colours = new Set<string>();
      for (let offset = 0; offset < pixels.data.length; offset += 4) colours.add(pixels.data.subarray(offset, offset + 4).toString('hex'));
      expect(colours, `frame ${index + 1}`).toEqual(
        new Set([MAGENTA, [250, 250, 210, 255], pose(index + 1).colour].map((c) => Buffer.from(c).toString('hex'))),
      );
    }
    // Without a slice step: one result, as applyPostSteps gives.
    expect(await applyPostStepsToFrames(png, parsePostSteps(['trim']))).toHaveLength(1);
  });

  it('each frame of a strip cut at transparent gaps, trimmed, is its pose; the same bytes every time', async () => {
    const png = await toPng(walkStrip(TRANSPARENT));
    const steps = parsePostSteps([{ slice: { gaps: 'transparent' } }, 'trim']);
    const results = await applyPostStepsToFrames(png, steps);
    expect(results).toHaveLength(8);
    for (const [index, result] of results.entries()) {
      const n = index + 1;
      const pixels = await readPixels(result.bytes);
      expect([pixels.width, pixels.height]).toEqual([pose(n).width, pose(n).height]);
      const trim = result.trim!;
      // Its cell is cut at gap middles, so its offset differs from the grid's; the pixels do not.
      for (let y = 0; y < pixels.height; y++)
        for (let x = 0; x < pixels.width; x++)
          expect(pixels.data.subarray((y * pixels.width + x) * 4, (y * pixels.width + x) * 4 + 4).toString('hex')).toBe(
            Buffer.from(poseColour(n, x + pose(n).left, y + pose(n).top, TRANSPARENT)).toString('hex'),
          );
      expect(trim.left + trim.width).toBeLessThanOrEqual(trim.sourceWidth);
    }
    const again = await applyPostStepsToFrames(png, steps);
    expect(again.map((result) => result.bytes.toString('hex'))).toEqual(results.map((result) => result.bytes.toString('hex')));
  });
});
