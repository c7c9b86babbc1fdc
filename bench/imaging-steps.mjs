// Each post step alone (issue 30), at 256² and 1,024², against a plain sharp script doing the same
// operation with the same output (the same PNG encoder settings; for `palette: 16` libimagequant at
// the same effort, 10): each contender a fresh process that runs its step on the same file
// a few times after one untimed run, timed inside, in alternating rounds, medians of BENCH_IMAGING_ROUNDS.
// Each row says whether the two outputs have the same pixels (the quality is the same).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const ROUNDS = Number(process.env.BENCH_IMAGING_ROUNDS ?? 3);
const SIZES = [256, 1024];
/** Per size: how many times a contender runs its step (a second or so of work each). */
const REPEATS = { 256: 12, 1024: 2 };

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs a module body in a fresh node process; returns what it prints as JSON. */
export function inFreshProcess(source) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  });
  if (result.status !== 0) throw new Error(`bench: a contender failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim());
}

/** Runs a module body in a fresh node process; returns the milliseconds it prints. */
export const timed = (source) => Number(inFreshProcess(source));

const PNG = '{ compressionLevel: 9, adaptiveFiltering: false, progressive: false }';
const CLEAR = '{ r: 0, g: 0, b: 0, alpha: 0 }';

/**
 * The steps: assetgen's `post:` list, and the plain sharp pipeline (`s` is sharp(input)) doing the
 * same. `pot` starts from a side 16 short of the size, so it has padding to add; `nearest` from half.
 */
const STEPS = [
  { name: 'trim', post: ['trim'], plain: (s) => `${s}.trim({ threshold: 0, lineArt: true }).png(${PNG})` },
  {
    name: 'resize to half, lanczos3, contain',
    post: (size) => [{ resize: { width: size / 2, height: size / 2 } }],
    plain: (s, size) => `${s}.resize(${size / 2}, ${size / 2}, { fit: 'contain', kernel: 'lanczos3', background: ${CLEAR} }).png(${PNG})`,
  },
  {
    // From half the size: the output is the row's size (post steps make at most 1,024², POST_LIMITS).
    // The same output takes more than sharp's one call: sharp premultiplies alpha to resize (a
    // hidden colour becomes 0, a half-transparent one shifts), and its pipeline runs in a fixed
    // order (removeAlpha, extractChannel after the resize), so a script keeping every colour — as
    // assetgen does, so that a `bleed` before the resize stays — scales colour and alpha apart, from
    // buffers. That script (same pixels) is the baseline; sharp's one call, whose pixels differ, is
    // timed in the split row below.
    name: 'resize ×2, nearest',
    from: (size) => size / 2,
    post: (size) => [{ resize: { width: size, height: size, kernel: 'nearest' } }],
    plainBytes: (size) => `(async () => {
      const { data, info } = await sharp(input).raw().toBuffer({ resolveWithObject: true });
      const raw = (channels, width = info.width, height = info.height) => ({ raw: { width, height, channels } });
      const [colour, alpha] = await Promise.all([
        sharp(data, raw(4)).removeAlpha().raw().toBuffer(),
        sharp(data, raw(4)).extractChannel(3).raw().toBuffer(),
      ]);
      const [bigColour, bigAlpha] = await Promise.all([
        sharp(colour, raw(3)).resize(${size}, ${size}, { kernel: 'nearest' }).raw().toBuffer(),
        sharp(alpha, raw(1)).resize(${size}, ${size}, { kernel: 'nearest' }).extractChannel(0).raw().toBuffer(),
      ]);
      return sharp(bigColour, raw(3, ${size}, ${size})).joinChannel(bigAlpha, raw(1, ${size}, ${size})).png(${PNG}).toBuffer();
    })()`,
  },
  {
    name: 'pot',
    post: ['pot'],
    from: (size) => size - 16,
    plain: (s) => `${s}.extend({ right: 16, bottom: 16, background: ${CLEAR} }).png(${PNG})`,
  },
  {
    name: 'palette: 16',
    post: [{ palette: 16 }],
    plain: (s) => `${s}.png({ ...${PNG}, palette: true, colours: 16, dither: 0, effort: 10 })`,
  },
  {
    name: 'format: webp',
    post: [{ format: 'webp' }],
    plain: (s) => `${s}.webp({ lossless: true, effort: 4, exact: false })`,
  },
];

/** A photo-like RGBA picture (smooth colour, noise, a soft round edge, a transparent border), made once with sharp. */
function makeInput(file, side) {
  inFreshProcess(`
    import sharp from 'sharp'; import fs from 'node:fs';
    const side = ${side}, raw = Buffer.alloc(side * side * 4), c = side / 2;
    let seed = 7; const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) & 7;
    for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) {
      const o = (y * side + x) * 4, r = Math.hypot(x - c, y - c) / c;
      raw[o] = 128 + 120 * Math.sin(x / side * 7) + noise(); raw[o + 1] = 128 + 120 * Math.cos(y / side * 5) + noise();
      raw[o + 2] = 250 * (1 - Math.min(1, r)); raw[o + 3] = r < 0.8 ? 255 : r < 0.9 ? Math.round(2550 * (0.9 - r)) : 0;
    }
    fs.writeFileSync(${JSON.stringify(file)}, await sharp(raw, { raw: { width: side, height: side, channels: 4 } }).png().toBuffer());
    console.log(0);`);
}

export async function stepRows() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-bench-steps-'));
  try {
    const rows = [];
    for (const size of SIZES) {
      for (const step of STEPS) {
        const side = step.from ? step.from(size) : size;
        const input = path.join(dir, `in-${side}.png`);
        if (!fs.existsSync(input)) makeInput(input, side);
        const post = typeof step.post === 'function' ? step.post(size) : step.post;
        const out = (who) => JSON.stringify(path.join(dir, `${who}-${size}-${STEPS.indexOf(step)}`));
        const loop = (body, who) => `
          const input = fs.readFileSync(${JSON.stringify(input)});
          // One run untimed: sharp loaded (assetgen loads it on first use) and warm on both sides.
          let bytes = ${body};
          const start = performance.now();
          for (let i = 0; i < ${REPEATS[size]}; i++) bytes = ${body};
          const ms = performance.now() - start;
          fs.writeFileSync(${out(who)}, bytes);
          console.log(ms);`;
        const ours = `
          import fs from 'node:fs';
          const { applyPostSteps } = await import(${JSON.stringify(path.join(DIST, 'imaging/post.js'))});
          const { parsePostSteps } = await import(${JSON.stringify(path.join(DIST, 'imaging/post-steps.js'))});
          const steps = parsePostSteps(${JSON.stringify(post)});
          ${loop('(await applyPostSteps(input, steps)).bytes', 'ours')}`;
        const plain = `
          import sharp from 'sharp'; import fs from 'node:fs';
          ${loop(`await ${step.plainBytes ? step.plainBytes(size) : `${step.plain('sharp(input)', size)}.toBuffer()`}`, 'plain')}`;
        const times = { ours: [], plain: [] };
        for (let round = 0; round < ROUNDS; round++) {
          times.ours.push(timed(ours));
          times.plain.push(timed(plain));
        }
        const same = samePixels(out('ours'), out('plain'));
        const oursMs = median(times.ours) / REPEATS[size];
        const plainMs = median(times.plain) / REPEATS[size];
        rows.push({
          figure: `post step \`${step.name}\` on a ${side}² RGBA PNG (median of ${ROUNDS}, fresh processes, ${REPEATS[size]} runs each; ${same})`,
          measured: `${oursMs.toFixed(1)} ms`,
          baseline: `a plain sharp script, same operation and encoder settings: ${plainMs.toFixed(1)} ms`,
          ratio: plainMs / oursMs,
          goal: '≥ 1×',
          met: plainMs / oursMs >= 1,
        });
      }
      rows.push(splitRow(path.join(dir, `in-${size}.png`), size));
      rows.push(nearestSplitRow(path.join(dir, `in-${size / 2}.png`), size));
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The split that names where a step's time goes beyond its operation (a fresh process, in-process
 * medians of 9 after one untimed run): assetgen's header check, its decode to an RGBA buffer in JS,
 * and its encode from that buffer (the road of every step that needs pixels in JS), against a plain
 * sharp pipeline decoding and encoding the same file in one go.
 */
function splitRow(input, size) {
  const { header, decode, encode, plain } = inFreshProcess(`
    import sharp from 'sharp'; import fs from 'node:fs';
    const raw = await import(${JSON.stringify(path.join(DIST, 'imaging/raw.js'))});
    const input = fs.readFileSync(${JSON.stringify(input)});
    const PNG = ${PNG};
    const time = async (work) => { await work(); const runs = []; for (let i = 0; i < 9; i++) { const start = performance.now(); await work(); runs.push(performance.now() - start); } return runs.sort((a, b) => a - b)[4]; };
    const image = await raw.decodeImage(input);
    const header = await time(() => raw.checkHeader(input));
    const decode = await time(() => raw.decodeImage(input));
    const encode = await time(() => raw.encodeImage(image, 'png'));
    const plain = await time(() => sharp(input).png(PNG).toBuffer());
    console.log(JSON.stringify({ header, decode, encode, plain }));`);
  return {
    figure: `split at ${size}²: assetgen's road through RGBA in JS, header check ${header.toFixed(2)} ms + decode to RGBA ${(decode - header).toFixed(1)} ms + encode from RGBA ${encode.toFixed(1)} ms (medians of 9, one process)`,
    measured: `${(decode + encode).toFixed(1)} ms`,
    baseline: `a plain sharp pipeline decoding and encoding the file in one go: ${plain.toFixed(1)} ms`,
    ratio: plain / (decode + encode),
    goal: 'reference',
    met: undefined,
  };
}

/**
 * The split of `resize ×2, nearest`, against sharp's one call, which makes other pixels: it
 * premultiplies alpha to resize (a half-transparent pixel's colour shifts, a transparent one's
 * colour becomes 0), where assetgen keeps every colour, hidden ones included (a `bleed` before it
 * stays). Timed in one process (medians of 9): assetgen's decode, its scale in JS, the encoder on
 * its pixels, and the same encoder (same settings) on sharp's pixels, against that one call; and
 * how many pixels differ, hidden colour only or visibly.
 */
function nearestSplitRow(input, size) {
  const { decode, scale, encodeOurs, encodePlainPixels, plain, hiddenOnly, visible } = inFreshProcess(`
    import sharp from 'sharp'; import fs from 'node:fs';
    const raw = await import(${JSON.stringify(path.join(DIST, 'imaging/raw.js'))});
    const { scaleNearest } = await import(${JSON.stringify(path.join(DIST, 'imaging/resize.js'))});
    const input = fs.readFileSync(${JSON.stringify(input)});
    const PNG = ${PNG}, size = ${size};
    const time = async (work) => { await work(); const runs = []; for (let i = 0; i < 9; i++) { const start = performance.now(); await work(); runs.push(performance.now() - start); } return runs.sort((a, b) => a - b)[4]; };
    const image = await raw.decodeImage(input);
    const ours = scaleNearest(image, size, size);
    const plainPixels = await sharp(input).resize(size, size, { kernel: 'nearest' }).raw().toBuffer();
    const encodeRaw = (data) => sharp(data, { raw: { width: size, height: size, channels: 4 } }).png(PNG).toBuffer();
    let hiddenOnly = 0, visible = 0;
    for (let i = 0; i < ours.data.length; i += 4)
      if (ours.data.readUInt32LE(i) !== plainPixels.readUInt32LE(i)) ours.data[i + 3] === 0 && plainPixels[i + 3] === 0 ? hiddenOnly++ : visible++;
    console.log(JSON.stringify({
      decode: await time(() => raw.decodeImage(input)),
      scale: await time(async () => scaleNearest(image, size, size)),
      encodeOurs: await time(() => encodeRaw(ours.data)),
      encodePlainPixels: await time(() => encodeRaw(plainPixels)),
      plain: await time(() => sharp(input).resize(size, size, { kernel: 'nearest' }).png(PNG).toBuffer()),
      hiddenOnly, visible,
    }));`);
  const share = (count) => `${((100 * count) / (size * size)).toFixed(0)} %`;
  return {
    figure: `split of \`resize ×2, nearest\` at ${size}²: decode ${decode.toFixed(1)} + scale in JS ${scale.toFixed(1)} + encode ${encodeOurs.toFixed(1)} ms; the same encoder on the pixels of sharp's one call ${encodePlainPixels.toFixed(1)} ms (they differ from assetgen's in ${share(hiddenOnly)} of pixels by hidden colour only, ${share(visible)} visibly; medians of 9, one process)`,
    measured: `${(decode + scale + encodeOurs).toFixed(1)} ms`,
    baseline: `sharp's one call, \`resize(…, { kernel: 'nearest' })\` (other pixels): ${plain.toFixed(1)} ms`,
    ratio: plain / (decode + scale + encodeOurs),
    goal: 'reference',
    met: undefined,
  };
}

/** Whether two outputs decode to the same pixels: the words a row carries. */
function samePixels(a, b) {
  return inFreshProcess(`
    import sharp from 'sharp';
    const read = (file) => sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const [x, y] = await Promise.all([read(${a}), read(${b})]);
    if (x.info.width !== y.info.width || x.info.height !== y.info.height) console.log(JSON.stringify('outputs of different sizes'));
    else {
      let worst = 0;
      for (let i = 0; i < x.data.length; i++) worst = Math.max(worst, Math.abs(x.data[i] - y.data[i]));
      console.log(JSON.stringify(worst === 0 ? 'same pixels' : 'pixels differ by at most ' + worst + '/255'));
    }`);
}

await runAlone(import.meta, stepRows);
