// maxrects-packer (a devDependency, never imported by src/): the baseline a multi-page atlas's
// occupancy is compared with, given the same frames, the same extrusion, padding and page size.
// Its package's `main` is a bundle Node reads as an empty ES module: the .mjs build is imported.
import type { MaxRectsPacker as Packer } from 'maxrects-packer';

export interface BaselineFrame {
  width: number;
  height: number;
}

/** maxrects-packer's pages for the frames (smallest power-of-two bins, no rotation), and its occupancy: frame pixels ÷ page pixels. */
export async function maxrectsPackerPages(
  frames: readonly BaselineFrame[],
  options: { padding: number; extrude: number; maxSize: number },
): Promise<{ pages: { width: number; height: number }[]; occupancy: number }> {
  const { MaxRectsPacker } = (await import('maxrects-packer/dist/maxrects-packer.mjs' as string)) as { MaxRectsPacker: typeof Packer };
  const { padding, extrude, maxSize } = options;
  const packer = new MaxRectsPacker(maxSize, maxSize, padding, { smart: true, pot: true, square: false, allowRotation: false });
  packer.addArray(frames.map((frame) => ({ width: frame.width + 2 * extrude, height: frame.height + 2 * extrude })) as never);
  const pages = packer.bins.map((bin) => ({ width: bin.width, height: bin.height }));
  const framePixels = frames.reduce((sum, frame) => sum + frame.width * frame.height, 0);
  return { pages, occupancy: framePixels / pages.reduce((sum, page) => sum + page.width * page.height, 0) };
}
