// Post steps within bounds (issue 30, point 9): every step, run by the real CLI (`assetgen build`
// re-processing a kept original, no paid call), on a photo-like image at the documented limit
// (POST_LIMITS: 2,048² pixels), stays within 150 MiB of peak RSS for the whole process, measured
// exactly by getrusage at exit (test/support/peak-rss.ts). The image is put in place of a built
// output and the lock told its hash, as if the service had sent it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { POST_LIMITS } from '../../src/imaging/limits.js';
import { runCli } from '../support/cli.js';
import { runMeasured } from '../support/peak-rss.js';
import { useMockProject } from '../support/project.js';

const PEAK_MIB = 150;
const SIDE = Math.sqrt(POST_LIMITS.maxPixels);

const project = useMockProject({
  mock: { credits: 1_000_000 },
  files: { 'assetgen.yaml': 'assets:\n  - id: hero\n    agent: sprite-artist\n    prompt: a hero\n    out: assets/hero.png\n' },
});

/** Smooth colour with noise and a soft round edge inside a transparent border: many colours, real work for every step. */
async function pictureAtTheLimit(): Promise<Buffer> {
  const raw = Buffer.alloc(SIDE * SIDE * 4);
  const centre = SIDE / 2;
  let seed = 11;
  const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) & 15;
  for (let y = 0; y < SIDE; y++)
    for (let x = 0; x < SIDE; x++) {
      const offset = (y * SIDE + x) * 4;
      const r = Math.hypot(x - centre, y - centre) / centre;
      raw[offset] = 120 + 110 * Math.sin((x / SIDE) * 9) + noise();
      raw[offset + 1] = 120 + 110 * Math.cos((y / SIDE) * 7) + noise();
      raw[offset + 2] = 240 * (1 - Math.min(1, r)) + noise();
      raw[offset + 3] = r < 0.85 ? 255 : r < 0.95 ? Math.round(2550 * (0.95 - r)) : 0;
    }
  return sharp(raw, { raw: { width: SIDE, height: SIDE, channels: 4 } })
    .png()
    .toBuffer();
}

const STEPS: [string, string][] = [
  ['trim', '[trim]'],
  ['resize lanczos3', `[{resize: {width: ${SIDE / 2}, height: ${SIDE / 2}}}]`],
  ['resize nearest to the limit', `[{resize: {width: ${SIDE}, height: ${SIDE}, fit: fill, kernel: nearest}}]`],
  ['pot', '[pot]'],
  ['palette', '[{palette: 16}]'],
  ['format webp', '[{format: webp}]'],
  [
    'every step',
    `[trim, {resize: {width: ${SIDE * 0.75}, height: ${SIDE * 0.75}, kernel: nearest}}, pot, {palette: {colors: 32, dither: 0.5}}, {format: webp}]`,
  ],
];

describe(`post steps at the limit (${SIDE}² pixels)`, () => {
  it(`each step stays within ${PEAK_MIB} MiB of peak RSS in a real build`, { timeout: 600_000 }, async () => {
    const env = project.env();
    const cwd = project.cwd;
    const manifest = fs.readFileSync(path.join(cwd, 'assetgen.yaml'), 'utf8');
    expect((await runCli(['build', '--yes', '-q'], { env, cwd, timeoutMs: 60_000 })).code).toBe(0);
    // The service's image replaced by one at the limit; the lock records its hash, as after a build.
    const big = await pictureAtTheLimit();
    fs.writeFileSync(path.join(cwd, 'assets/hero.png'), big);
    const lockFile = path.join(cwd, 'assetgen.lock');
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    lock.assets.hero.files = [{ path: 'assets/hero.png', sha256: crypto.createHash('sha256').update(big).digest('hex'), size: big.length }];
    fs.writeFileSync(lockFile, JSON.stringify(lock, null, 2));

    const peaks: Record<string, number> = {};
    for (const [name, post] of STEPS) {
      const out = post.includes('webp') ? 'assets/hero.webp' : 'assets/hero.png';
      fs.writeFileSync(path.join(cwd, 'assetgen.yaml'), `${manifest.replace('out: assets/hero.png', `out: ${out}`)}    post: ${post}\n`);
      const result = await runMeasured(['build', '--yes', '--json'], { env, cwd, timeoutMs: 300_000 });
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      const built = JSON.parse(result.stdout);
      // Re-processed from the kept original: the step ran, nothing was paid for.
      expect(JSON.stringify(built), name).toContain('"built"');
      peaks[name] = Math.round(result.peakRssMiB);
    }
    console.log(`peak RSS by post step at ${SIDE}²: ${JSON.stringify(peaks)}`);
    for (const [name, peak] of Object.entries(peaks)) expect(peak, name).toBeLessThanOrEqual(PEAK_MIB);
    // Nothing charged after the first build: every step ran on the kept original.
    expect((await project.ledger()).filter((entry) => entry.amount < 0)).toHaveLength(1);
  });
});
