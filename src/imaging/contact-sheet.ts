// The contact sheet of an asset's takes: one PNG, the takes in a grid, each under a label with its
// number (white digits on black, drawn with our own bitmap font: ./digits.ts), the picked one in a
// green frame, transparency shown on a checkerboard. Small enough for an agent's image input
// (INLINE_IMAGE_LIMITS, the rule MCP image content follows), so an agent shown it can say "pick 3"
// without guessing which file is which. The layout (each take's cell, picture and label rectangle)
// is returned beside the PNG, for tests and agents that read files.
import { digitsSize, drawDigits, fillRect } from './digits.js';
import { ImagingError } from './errors.js';
import { INLINE_IMAGE_LIMITS } from './limits.js';
import { blank, type RawImage } from './raw.js';
import { resizeImage } from './resize.js';
import { loadSharp } from './sharp.js';

/** At most this many takes are drawn (a 6 × 6 grid still has readable cells); the layout lists the rest as omitted. */
export const CONTACT_SHEET_MAX_TAKES = 36;

/** Pixel sizes of the grid. */
const MARGIN = 8;
/** Every cell has a frame this wide: the picked take's is green, the others' the sheet's colour. */
const FRAME = 4;
/** The label's padding around its digits. */
const LABEL_PAD = 3;
/** Screen pixels per glyph pixel of the label's digits: larger when there are fewer, larger cells. */
const labelScale = (takes: number): number => (takes <= 4 ? 5 : takes <= 9 ? 4 : 3);
const labelHeight = (scale: number): number => digitsSize('0', scale).height + 2 * LABEL_PAD;
/** A picture is never drawn larger than this a side (pixel art is scaled up to it, sharp-edged). */
const MAX_THUMB = 256;
/** The smallest picture still worth a cell. */
const MIN_THUMB = 24;
/** Each try at a PNG over the byte limit shrinks the pictures by this factor. */
const SHRINK = 0.7;
const MAX_TRIES = 6;

/** Colours as 0xRRGGBBAA. */
export const SHEET_COLOURS = {
  background: 0xe6e6e6ff,
  picked: 0x00a651ff,
  labelBackground: 0x000000ff,
  labelInk: 0xffffffff,
  checkerLight: 0xffffffff,
  checkerDark: 0xc8c8c8ff,
  missing: 0x8c8c8cff,
  missingInk: 0x505050ff,
} as const;
const CHECKER = 8;

export interface SheetTake {
  k: number;
  picked: boolean;
  /** The take's pixels; null when it could not be read (its cell shows a crossed grey square). */
  image: RawImage | null;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface ContactSheetLayout {
  width: number;
  height: number;
  /** The side of the square each picture is fitted into. */
  thumb: number;
  takes: { k: number; picked: boolean; cell: Box; image: Box; label: Box; missing: boolean }[];
  /** Takes past CONTACT_SHEET_MAX_TAKES, not drawn. */
  omitted: number[];
}

export interface ContactSheet {
  png: Buffer;
  layout: ContactSheetLayout;
}

/** The sheet of `takes` (in the order given), within `limits` (a side, and the PNG's bytes). */
export async function renderContactSheet(
  takes: readonly SheetTake[],
  limits: { maxSide: number; maxBytes: number } = INLINE_IMAGE_LIMITS,
): Promise<ContactSheet> {
  if (takes.length === 0) throw new Error('a contact sheet needs at least one take');
  const shown = takes.slice(0, CONTACT_SHEET_MAX_TAKES);
  const columns = Math.ceil(Math.sqrt(shown.length));
  const rows = Math.ceil(shown.length / columns);
  const scale = labelScale(shown.length);
  const widest = Math.max(...shown.map((take) => digitsSize(String(take.k), scale).width + 2 * LABEL_PAD));
  // The largest picture that keeps the whole sheet within the side limit.
  const fitWidth = Math.floor((limits.maxSide - MARGIN) / columns) - MARGIN - 2 * FRAME;
  const fitHeight = Math.floor((limits.maxSide - MARGIN) / rows) - MARGIN - 2 * FRAME - labelHeight(scale);
  let thumb = Math.min(MAX_THUMB, fitWidth, fitHeight);
  if (thumb < Math.max(MIN_THUMB, widest))
    throw new ImagingError('too_large', `${shown.length} takes do not fit a ${limits.maxSide}-pixel contact sheet`);
  const smallest = Math.max(MIN_THUMB, widest);
  for (let attempt = 1; ; attempt++) {
    const sheet = await drawSheet(shown, { columns, rows, thumb, scale });
    const png = await encodeOpaque(sheet.raster);
    if (png.length <= limits.maxBytes)
      return { png, layout: { ...sheet.layout, omitted: takes.slice(CONTACT_SHEET_MAX_TAKES).map((take) => take.k) } };
    // Noisy pictures (photos) compress badly: smaller pictures, until the PNG fits.
    const next = Math.floor(thumb * SHRINK);
    if (attempt >= MAX_TRIES || next < smallest)
      throw new ImagingError('too_large', `the contact sheet stays over ${limits.maxBytes} bytes even with ${thumb}-pixel pictures`);
    thumb = next;
  }
}

async function drawSheet(takes: readonly SheetTake[], grid: { columns: number; rows: number; thumb: number; scale: number }) {
  const { columns, rows, thumb, scale } = grid;
  const cellWidth = thumb + 2 * FRAME;
  const cellHeight = thumb + labelHeight(scale) + 2 * FRAME;
  const raster = blank(MARGIN + columns * (cellWidth + MARGIN), MARGIN + rows * (cellHeight + MARGIN));
  fillRect(raster, { left: 0, top: 0, width: raster.width, height: raster.height }, SHEET_COLOURS.background);
  const cells: ContactSheetLayout['takes'] = [];
  for (const [index, take] of takes.entries()) {
    const cell = {
      x: MARGIN + (index % columns) * (cellWidth + MARGIN),
      y: MARGIN + Math.floor(index / columns) * (cellHeight + MARGIN),
      w: cellWidth,
      h: cellHeight,
    };
    if (take.picked) fillBox(raster, cell, SHEET_COLOURS.picked);
    const text = String(take.k);
    const label = { x: cell.x + FRAME, y: cell.y + FRAME, w: digitsSize(text, scale).width + 2 * LABEL_PAD, h: labelHeight(scale) };
    fillBox(raster, label, SHEET_COLOURS.labelBackground);
    drawDigits(raster, text, label.x + LABEL_PAD, label.y + LABEL_PAD, scale, SHEET_COLOURS.labelInk);
    const image = { x: cell.x + FRAME, y: label.y + label.h, w: thumb, h: thumb };
    if (take.image) await drawPicture(raster, take.image, image);
    else drawMissing(raster, image);
    cells.push({ k: take.k, picked: take.picked, cell, image, label, missing: !take.image });
  }
  return { raster, layout: { width: raster.width, height: raster.height, thumb, takes: cells } };
}

/** The picture fitted into `box` (sharp-edged when enlarged: pixel art stays pixel art), over a checkerboard. */
async function drawPicture(raster: RawImage, picture: RawImage, box: Box): Promise<void> {
  const enlarging = picture.width <= box.w && picture.height <= box.h;
  const fitted = await resizeImage(picture, { width: box.w, height: box.h, fit: 'contain', kernel: enlarging ? 'nearest' : 'lanczos3' });
  for (let y = 0; y < box.h; y++) {
    for (let x = 0; x < box.w; x++) {
      const from = (y * fitted.width + x) * 4;
      const to = ((box.y + y) * raster.width + box.x + x) * 4;
      const checker = (Math.floor(x / CHECKER) + Math.floor(y / CHECKER)) % 2 ? SHEET_COLOURS.checkerDark : SHEET_COLOURS.checkerLight;
      const alpha = fitted.data[from + 3] / 255;
      for (let channel = 0; channel < 3; channel++) {
        const under = (checker >>> (24 - channel * 8)) & 0xff;
        raster.data[to + channel] = Math.round(fitted.data[from + channel] * alpha + under * (1 - alpha));
      }
      raster.data[to + 3] = 255;
    }
  }
}

/** A take whose file could not be read: a grey square crossed out. */
function drawMissing(raster: RawImage, box: Box): void {
  fillBox(raster, box, SHEET_COLOURS.missing);
  for (let i = 0; i < box.w; i++) {
    const y = Math.floor((i * box.h) / box.w);
    // Three pixels thick, kept inside the box (the label is just above it).
    const top = box.y + Math.max(0, y - 1);
    const height = Math.min(box.h, y + 2) - Math.max(0, y - 1);
    fillRect(raster, { left: box.x + i, top, width: 1, height }, SHEET_COLOURS.missingInk);
    fillRect(raster, { left: box.x + box.w - 1 - i, top, width: 1, height }, SHEET_COLOURS.missingInk);
  }
}

const fillBox = (raster: RawImage, box: Box, colour: number): void =>
  fillRect(raster, { left: box.x, top: box.y, width: box.w, height: box.h }, colour);

/** The sheet is opaque: an RGB PNG (a quarter smaller than RGBA), fixed settings, the same bytes every time. */
async function encodeOpaque(raster: RawImage): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 4 } })
    .removeAlpha()
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
}
