// The `post:` validator: every accepted spelling gives one canonical step (defaults filled in), and
// every bad list a PostSpecError whose message names the step and whose path leads to the value.
import { describe, expect, it } from 'vitest';
import { describePostSteps, parsePostSteps } from '../../src/imaging/post-steps.js';
import { rejection } from './post-rejection.js';

describe('parsePostSteps', () => {
  it('fills in every default, whichever spelling is used', () => {
    expect(
      parsePostSteps([
        'trim',
        { resize: { width: 64, height: 64, kernel: 'nearest' } },
        { pot: null },
        { palette: 16 },
        { format: 'webp' },
      ]),
    ).toEqual([
      { kind: 'trim', threshold: 0 },
      { kind: 'resize', width: 64, height: 64, fit: 'contain', kernel: 'nearest' },
      { kind: 'pot' },
      { kind: 'palette', colors: 16, dither: 0 },
      { kind: 'format', format: 'webp' },
    ]);
    expect(parsePostSteps([{ trim: true }, { resize: '32x48' }, 'pot', { palette: { colors: 4, dither: 0.5 } }])).toEqual([
      { kind: 'trim', threshold: 0 },
      { kind: 'resize', width: 32, height: 48, fit: 'contain', kernel: 'lanczos3' },
      { kind: 'pot' },
      { kind: 'palette', colors: 4, dither: 0.5 },
    ]);
    expect(parsePostSteps([{ resize: { height: 10, fit: 'cover' } }])).toEqual([
      { kind: 'resize', width: undefined, height: 10, fit: 'cover', kernel: 'lanczos3' },
    ]);
    expect(parsePostSteps([])).toEqual([]);
  });

  it.each([
    ['trim', [], /^post must be a list of steps/],
    [['blur'], [0], /^post\[0\]: unknown step "blur"; the steps are trim, resize, pot, palette, format, key, bleed, extrude, slice$/],
    [[{ trim: true, pot: true }], [0], /^post\[0\]: a step is one key .*, got trim, pot$/],
    [[{}], [0], /got none$/],
    [[42], [0], /unknown step 42/],
    [['trim', 'trim'], [1], /^post\[1\]: trim is already post\[0\]; each step may appear once$/],
    [
      [{ resize: { width: '64px' } }],
      [0, 'resize', 'width'],
      /^post\[0\]\.resize\.width must be a whole number from 1 to 16384, got "64px"$/,
    ],
    [[{ resize: { width: 0 } }], [0, 'resize', 'width'], /got 0$/],
    [[{ resize: { width: 64.5 } }], [0, 'resize', 'width'], /got 64.5$/],
    [[{ resize: {} }], [0, 'resize'], /needs a width, a height or both/],
    [[{ resize: { width: 8, scale: 2 } }], [0, 'resize', 'scale'], /unknown key scale; the keys are width, height, fit, kernel$/],
    [
      [{ resize: { width: 8, fit: 'stretch' } }],
      [0, 'resize', 'fit'],
      /fit must be one of contain, cover, fill, inside, outside, got "stretch"/,
    ],
    [[{ resize: { width: 8, kernel: 'point' } }], [0, 'resize', 'kernel'], /kernel must be one of nearest, .*\(nearest for pixel art\)/],
    [[{ resize: '64' }], [0, 'resize'], /must be WIDTHxHEIGHT \(e\.g\. 64x64\)/],
    [[{ resize: '0x64' }], [0, 'resize'], /resize width must be a whole number from 1/],
    [[{ palette: 1 }], [0, 'palette'], /^post\[0\]\.palette must be a whole number from 2 to 256, got 1$/],
    [[{ palette: 300 }], [0, 'palette'], /got 300$/],
    [[{ palette: { colors: 8, dither: 2 } }], [0, 'palette', 'dither'], /dither must be a number from 0 to 1, got 2$/],
    [[{ palette: 'lots' }], [0, 'palette'], /must be a number of colours/],
    [[{ format: 'jpeg' }], [0, 'format'], /^post\[0\]\.format must be png or webp, got "jpeg"$/],
    [[{ pot: 128 }], [0, 'pot'], /takes no value/],
    [[{ trim: { threshold: 255 } }], [0, 'trim', 'threshold'], /from 0 to 254/],
    [[{ trim: false }], [0, 'trim'], /must be true, or \{threshold: 0-254\}, got false/],
    [[{ format: 'png' }, 'trim'], [0], /^post\[0\]: format must be the last step/],
    [[{ palette: 8 }, { resize: '16x16' }], [1], /^post\[1\]: resize must come before palette \(post\[0\]\): it would add colours back$/],
    [[{ palette: 8 }, 'pot'], [1], /pot must come before palette/],
  ])('rejects %j at %j', (post, path, message) => {
    const error = rejection(post);
    expect(error.path).toEqual(path);
    expect(error.message).toMatch(message);
  });

  it('stops at the first repeated step of a long hostile list', () => {
    expect(rejection(Array.from({ length: 1_000_000 }, () => 'pot')).path).toEqual([1]);
  });

  it('describes steps in one line', () => {
    const steps = parsePostSteps([
      'trim',
      { resize: { width: 64, height: 64, kernel: 'nearest' } },
      'pot',
      { palette: 8 },
      { format: 'webp' },
    ]);
    expect(describePostSteps(steps)).toBe('trim · resize 64×64 contain nearest · pot · palette 8 · webp');
  });
});
