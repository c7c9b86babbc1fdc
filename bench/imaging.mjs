// Engine-ready assets (issue 21): assetgen's post steps on 1,000 64×64 pixel-art images against a
// plain sharp script doing the same steps (trim, then a nearest-neighbour resize to 32×32 inside a
// transparent square), each contender a fresh process reading and writing the same files, in
// alternating rounds, medians of BENCH_IMAGING_ROUNDS (default 3); and packing 500 frames into one
// atlas (goal ≤ 1 s), a fresh process each round; then each step alone at 256² and 1,024²
// (bench/imaging-steps.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';
import { stepRows } from './imaging-steps.mjs';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const ROUNDS = Number(process.env.BENCH_IMAGING_ROUNDS ?? 3);
const IMAGES = 1000;
const FRAMES = 500;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs a module body in a fresh node process; returns the milliseconds it reports for its work. */
function timed(source) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (result.status !== 0) throw new Error(`bench/imaging: a contender failed: ${result.stderr}`);
  return Number(result.stdout.trim());
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-bench-imaging-'));
  try {
    // Pixel art with a transparent border (so trim has work): made once with sharp.
    const made = timed(`
      import sharp from 'sharp'; import fs from 'node:fs';
      const start = performance.now();
      for (let i = 0; i < ${IMAGES}; i++) {
        const raw = Buffer.alloc(64 * 64 * 4);
        for (let y = 8; y < 56; y++) for (let x = 8; x < 56; x++) {
          const o = (y * 64 + x) * 4; const c = ((x >> 3) + (y >> 3) + i) % 5;
          raw[o] = 40 * c; raw[o + 1] = 200 - 30 * c; raw[o + 2] = (i * 7) % 255; raw[o + 3] = 255;
        }
        fs.writeFileSync(${JSON.stringify(dir)} + '/in-' + i + '.png', await sharp(raw, { raw: { width: 64, height: 64, channels: 4 } }).png().toBuffer());
      }
      console.log(performance.now() - start);`);
    void made;
    const ours = `
      import fs from 'node:fs';
      const { applyPostSteps } = await import(${JSON.stringify(path.join(DIST, 'imaging/post.js'))});
      const { parsePostSteps } = await import(${JSON.stringify(path.join(DIST, 'imaging/post-steps.js'))});
      const steps = parsePostSteps(['trim', { resize: { width: 32, height: 32, kernel: 'nearest' } }]);
      const start = performance.now();
      for (let i = 0; i < ${IMAGES}; i++) {
        const out = await applyPostSteps(fs.readFileSync(${JSON.stringify(dir)} + '/in-' + i + '.png'), steps);
        fs.writeFileSync(${JSON.stringify(dir)} + '/ours-' + i + '.png', out.bytes);
      }
      console.log(performance.now() - start);`;
    const plain = `
      import sharp from 'sharp'; import fs from 'node:fs';
      const start = performance.now();
      for (let i = 0; i < ${IMAGES}; i++) {
        const bytes = await sharp(fs.readFileSync(${JSON.stringify(dir)} + '/in-' + i + '.png')).trim().resize(32, 32, { kernel: 'nearest', fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
        fs.writeFileSync(${JSON.stringify(dir)} + '/plain-' + i + '.png', bytes);
      }
      console.log(performance.now() - start);`;
    const pack = `
      import fs from 'node:fs';
      const { packAtlas } = await import(${JSON.stringify(path.join(DIST, 'imaging/atlas.js'))});
      const frames = Array.from({ length: ${FRAMES} }, (_, i) => ({ name: 'f' + i, bytes: fs.readFileSync(${JSON.stringify(dir)} + '/ours-' + (i % ${IMAGES}) + '.png') }));
      const start = performance.now();
      await packAtlas(frames, { image: 'atlas.png' });
      console.log(performance.now() - start);`;
    const times = { ours: [], plain: [], pack: [] };
    for (let round = 0; round < ROUNDS; round++) {
      times.ours.push(timed(ours));
      times.plain.push(timed(plain));
      times.pack.push(timed(pack));
    }
    const oursMs = median(times.ours);
    const plainMs = median(times.plain);
    const packMs = median(times.pack);
    const ratio = plainMs / oursMs;
    return [
      {
        figure: `post steps (trim, nearest resize to 32×32) on ${IMAGES.toLocaleString('en')} 64×64 images (median of ${ROUNDS}, fresh processes)`,
        measured: `${Math.round(oursMs)} ms`,
        baseline: `a plain sharp script, same steps and files: ${Math.round(plainMs)} ms`,
        ratio,
        goal: '≥ 0.8×',
        met: ratio >= 0.8,
      },
      {
        figure: `packing ${FRAMES} frames into one atlas (median of ${ROUNDS}, fresh processes)`,
        measured: `${Math.round(packMs)} ms`,
        baseline: 'the goal, 1 s',
        ratio: packMs / 1000,
        goal: '≤ 1× (1 s)',
        met: packMs <= 1000,
      },
      ...(await stepRows()),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runAlone(import.meta, run);
