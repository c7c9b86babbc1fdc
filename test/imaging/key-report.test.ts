// What a `key` step reports (src/imaging/edges.ts, docs/imaging.md "Clean edges"): how much of the
// image it made transparent, the border's most common colour (what the model drew), and — when it
// left the image (almost) opaque — a warning naming both, carried by the post result (and by every
// frame of a slice) while the image is still made. Real PNGs through applyPostSteps.
import { describe, expect, it } from 'vitest';
import { borderColour, KEY_WARN_SHARE, keyWarning } from '../../src/imaging/edges.js';
import { applyPostSteps, applyPostStepsToFrames } from '../../src/imaging/post.js';
import { parsePostSteps } from '../../src/imaging/post-steps.js';
import { makePixels, readPixels, toPng, type Pixels, type RGBA } from './pixels.js';

const DARK_GREEN: RGBA = [29, 38, 23, 255];
const MAGENTA: RGBA = [255, 0, 255, 255];
const KNIGHT: RGBA = [200, 180, 90, 255];

/** 40×20: a 20×10 knight in the middle of a background. */
const sprite = (background: RGBA): Pixels => makePixels(40, 20, (x, y) => (x >= 10 && x < 30 && y >= 5 && y < 15 ? KNIGHT : background));

const run = async (pixels: Pixels, post: unknown) => applyPostSteps(await toPng(pixels), parsePostSteps(post));

describe('the key step’s report', () => {
  it('a key colour that matches no pixel keys nothing: the image is still made, with a warning naming the colour drawn', async () => {
    const result = await run(sprite(DARK_GREEN), [{ key: '#ff00ff' }, 'trim', 'bleed']);
    expect(result.key).toEqual({
      color: '#ff00ff',
      tolerance: 32,
      softness: 64,
      pixels: 800,
      keyed: 0,
      softened: 0,
      share: 0,
      transparent: 0,
      border: '#1d2617',
    });
    expect(result.warnings).toEqual([
      "key #ff00ff made no pixel transparent (of 800): the image's border is mostly #1d2617, so the background drawn is another colour. " +
        "The output is written as it is, opaque. Set the key to the colour drawn (key: '#1d2617'), raise its tolerance, or ask for a flat #ff00ff background in the prompt. " +
        'The build still succeeds: a rule checks: { alpha: required } in assetgen.yaml is what fails such an image (in CI).',
    ]);
    // Made all the same: the whole picture, opaque (trim found nothing to cut).
    const pixels = await readPixels(result.bytes);
    expect([pixels.width, pixels.height, result.trim]).toEqual([
      40,
      20,
      { left: 0, top: 0, width: 40, height: 20, sourceWidth: 40, sourceHeight: 20 },
    ]);
  });

  it('the key colour drawn: it reports what it keyed, and says nothing more', async () => {
    const result = await run(sprite(MAGENTA), [{ key: '#ff00ff' }, 'trim']);
    expect(result.key).toMatchObject({ keyed: 600, softened: 0, share: 0.75, transparent: 600, border: '#ff00ff' });
    expect(result.warnings).toBeUndefined();
    expect(result.trim).toMatchObject({ left: 10, top: 5, width: 20, height: 10 });
  });

  it('almost nothing keyed (under 1 % of the pixels): said with the count', async () => {
    // Three magenta pixels on the dark green.
    const speckled = makePixels(40, 20, (x, y) =>
      y === 0 && x < 3 ? MAGENTA : sprite(DARK_GREEN).data[(y * 40 + x) * 4] === 29 ? DARK_GREEN : KNIGHT,
    );
    const result = await run(speckled, [{ key: '#ff00ff' }]);
    expect(result.key).toMatchObject({ keyed: 3, share: 0.0038 });
    expect(result.warnings?.[0]).toMatch(
      /^key #ff00ff made only 3 of 800 pixels transparent or partly so \(0\.38 %\): the image's border is mostly #1d2617, .* The output is written as it is, almost opaque\./,
    );
    // 8 of 800 is 1 %: no longer almost nothing.
    const eight = makePixels(40, 20, (x, y) => (y === 0 && x < 8 ? MAGENTA : DARK_GREEN));
    expect(KEY_WARN_SHARE).toBe(0.01);
    expect((await run(eight, [{ key: '#ff00ff' }])).warnings).toBeUndefined();
  });

  it('an image with its own transparency, keyed nothing, is not warned about; a slice’s frames each carry the warning', async () => {
    const transparent = makePixels(40, 20, (x, y) => (x >= 10 && x < 30 && y >= 5 && y < 15 ? KNIGHT : [0, 0, 0, 0]));
    const own = await run(transparent, [{ key: '#ff00ff' }]);
    expect(own.key).toMatchObject({ keyed: 0, transparent: 600, border: null });
    expect(own.warnings).toBeUndefined();

    const frames = await applyPostStepsToFrames(
      await toPng(sprite(DARK_GREEN)),
      parsePostSteps([{ key: '#ff00ff' }, { slice: { columns: 2 } }, 'trim']),
    );
    expect(frames).toHaveLength(2);
    for (const frame of frames) {
      expect(frame.key).toMatchObject({ pixels: 800, keyed: 0 });
      expect(frame.warnings?.[0]).toMatch(/^key #ff00ff made no pixel transparent \(of 800\)/);
    }
    // No key step: no report.
    expect((await run(sprite(DARK_GREEN), ['trim'])).key).toBeUndefined();
  });

  it('the border colour: the largest group of near colours (a noisy background is one), its most common member', () => {
    // 4×3: a border of 10 pixels, 4 red and 6 of three near greens (3, 2 and 1): no green alone
    // outnumbers the red, their group does; its most common member is the answer.
    const greens: RGBA[] = [
      [30, 40, 20, 255],
      [31, 41, 22, 255],
      [28, 44, 21, 255],
    ];
    const border: RGBA[] = [
      [200, 10, 10, 255],
      [200, 10, 10, 255],
      [200, 10, 10, 255],
      [200, 10, 10, 255],
      greens[1],
      greens[0],
      greens[0],
      greens[1],
      greens[0],
      greens[2],
    ];
    const noisy = makePixels(4, 3, (x, y) => {
      if (y === 1 && x > 0 && x < 3) return [0, 0, 0, 255];
      return border[y === 0 ? x : y === 2 ? 4 + x : x === 0 ? 8 : 9];
    });
    expect(borderColour(noisy)).toBe('#1e2814');
    expect(borderColour(makePixels(2, 2, (): RGBA => [0, 0, 0, 0]))).toBeNull();
    // A thin magenta frame keyed on a picture that fills the canvas: the hint says so, not "another colour".
    const framed = keyWarning({
      color: '#ff00ff',
      tolerance: 32,
      softness: 64,
      pixels: 1_000_000,
      keyed: 3996,
      softened: 0,
      share: 0.004,
      transparent: 3996,
      border: '#ff00ff',
    });
    expect(framed).toContain("the image's border is mostly #ff00ff, which it keyed, but the picture fills the rest");
    expect(framed).toContain("Raise the key's tolerance, or ask for a wide flat #ff00ff background in the prompt.");
  });
});
