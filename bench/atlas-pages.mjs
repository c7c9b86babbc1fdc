// Sets larger than one atlas page (issue 30): 2,000 frames of 64–200 px (a fixed pseudo-random
// sequence, the same as test/slow/atlas-pages.test.ts's first set) laid out on 4096² pages with
// padding 2 and extrude 1, by assetgen's packer and by maxrects-packer (smallest power-of-two bins,
// no rotation) on the same frames. The figure is occupancy (frame pixels ÷ page pixels), not time:
// the same on every machine.
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const COUNT = 2000;
const OPTIONS = { padding: 2, extrude: 1, maxSize: 4096 };

function frameSizes(count, min, max, seed) {
  let state = seed;
  const next = () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: count }, (_, index) => ({
    name: `f${String(index).padStart(4, '0')}`,
    width: min + Math.floor(next() * (max - min + 1)),
    height: min + Math.floor(next() * (max - min + 1)),
  }));
}

const pagesText = (pages) => {
  const counts = new Map();
  for (const page of pages) counts.set(`${page.width}×${page.height}`, (counts.get(`${page.width}×${page.height}`) ?? 0) + 1);
  return [...counts].map(([size, count]) => `${count} × ${size}`).join(' + ');
};

export async function run() {
  const { layoutAtlas, occupancy } = await import(`${DIST}imaging/pages.js`);
  // The package's `main` is a bundle Node reads as an empty ES module: its .mjs build is the one to import.
  const { MaxRectsPacker } = await import('maxrects-packer/dist/maxrects-packer.mjs');
  const frames = frameSizes(COUNT, 64, 200, 7);
  const ours = layoutAtlas(frames, { ...OPTIONS, pages: true });
  const packer = new MaxRectsPacker(OPTIONS.maxSize, OPTIONS.maxSize, OPTIONS.padding, {
    smart: true,
    pot: true,
    square: false,
    allowRotation: false,
  });
  packer.addArray(frames.map((frame) => ({ width: frame.width + 2 * OPTIONS.extrude, height: frame.height + 2 * OPTIONS.extrude })));
  const theirs = packer.bins.map((bin) => ({ width: bin.width, height: bin.height }));
  const [oursOccupancy, theirsOccupancy] = [occupancy(frames, ours), occupancy(frames, theirs)];
  const percent = (value) => `${(value * 100).toFixed(1)} %`;
  return [
    {
      figure: `occupancy of ${COUNT.toLocaleString('en')} frames (64–200 px, padding 2, extrude 1) on pages of at most 4096²`,
      measured: `${percent(oursOccupancy)} (${pagesText(ours)})`,
      baseline: `maxrects-packer 2.7.4, same frames: ${percent(theirsOccupancy)} (${pagesText(theirs)})`,
      ratio: oursOccupancy / theirsOccupancy,
      goal: '≥ 1×',
      met: oursOccupancy >= theirsOccupancy,
    },
  ];
}

runAlone(import.meta, run);
