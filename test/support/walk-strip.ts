// A walk cycle as an image model draws one: 4 × 2 cells of 24 × 24 on a flat background, each cell
// a different pose (a body of its own colour and size, at its own place in the cell, a light mark at
// its top left), so a frame shown out of order, or out of place, is told apart pixel by pixel.
import { makePixels, type Pixels, type RGBA } from '../imaging/pixels.js';

export const STRIP = { columns: 4, rows: 2, cell: 24 } as const;
export const MAGENTA: RGBA = [255, 0, 255, 255];
export const TRANSPARENT: RGBA = [0, 0, 0, 0];

/** Frame n's body (n from 1), in its cell's pixels: opaque, so a canvas reads it back exactly. */
export function pose(n: number): { left: number; top: number; width: number; height: number; colour: RGBA } {
  return {
    left: 2 + n,
    top: 2 + (n % 3) * 2,
    width: 8 + (n % 2) * 3,
    height: 10 + (n % 4),
    colour: [20 + 28 * n, 230 - 24 * n, 40 + ((n * 53) % 200), 255],
  };
}

/** The colour of cell pixel (x, y) of frame n, over `background`. */
export function poseColour(n: number, x: number, y: number, background: RGBA): RGBA {
  const body = pose(n);
  const inside = x >= body.left && x < body.left + body.width && y >= body.top && y < body.top + body.height;
  if (!inside) return background;
  return x - body.left < 2 && y - body.top < 2 ? [250, 250, 210, 255] : body.colour;
}

/** The whole strip: frames 1-4 on the top row, 5-8 below. */
export function walkStrip(background: RGBA): Pixels {
  const { columns, cell } = STRIP;
  return makePixels(columns * cell, STRIP.rows * cell, (x, y) => {
    const n = Math.floor(y / cell) * columns + Math.floor(x / cell) + 1;
    return poseColour(n, x % cell, y % cell, background);
  });
}

/** Frame n as a game should show it: its whole cell, the background replaced by `under`. */
export const shownFrame = (n: number, under: RGBA): Pixels =>
  makePixels(STRIP.cell, STRIP.cell, (x, y) => (poseColour(n, x, y, TRANSPARENT)[3] === 0 ? under : poseColour(n, x, y, TRANSPARENT)));
