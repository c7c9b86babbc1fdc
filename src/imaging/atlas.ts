// Sprite-sheet atlases: frames packed into one PNG plus its data in TexturePacker's JSON-hash format,
// which Phaser 3 (`this.load.atlas`) and PixiJS (`Assets.load` of the JSON) read natively. The same
// frames and options give the same bytes: frames are sorted by name, the packer breaks every tie by
// position, and the PNG encoder's settings are fixed.
import { blitExtruded } from './edges.js';
import { ImagingError } from './errors.js';
import { packMaxRects, type Size } from './maxrects.js';
import { trimImage } from './post.js';
import { ATLAS_LIMITS, atlasOptionProblem, IMAGE_LIMITS } from './limits.js';
import { blank, decodeImage, encodeImage, type RawImage } from './raw.js';

export interface AtlasFrameInput {
  /** The frame's key in the data file (what a game asks the engine for). */
  name: string;
  /** PNG, JPEG, WebP or GIF bytes. */
  bytes: Buffer;
  /**
   * A frame trimmed before packing (a sliced frame's trim record): where its pixels sat in a source
   * of `sourceWidth` × `sourceHeight`, so spriteSourceSize keeps it where it was. Used only when the
   * image is `width` × `height` (a later resize made it another picture).
   */
  placed?: { x: number; y: number; width: number; height: number; sourceWidth: number; sourceHeight: number };
}

export interface AtlasOptions {
  /** Transparent pixels between two frames' extruded edges. */
  padding?: number;
  /** Times each frame's edge pixels are repeated around it, so filtering at an edge samples the frame, not a neighbour. */
  extrude?: number;
  /** The largest side the atlas may have: a power of two. */
  maxSize?: number;
  /** Pack each frame without its transparent borders; the data says where it sat (spriteSourceSize). */
  trim?: boolean;
  /** The atlas image's file name, as the data file refers to it (meta.image), relative to the data file. */
  image?: string;
  /** Named animations: each a list of frame names, in the order they play (written as the data's `animations`). */
  animations?: Readonly<Record<string, readonly string[]>>;
}

export const ATLAS_DEFAULTS = { padding: 2, extrude: 1, maxSize: 4096, trim: false, image: 'atlas.png' } as const;

interface XY {
  x: number;
  y: number;
}
interface WH {
  w: number;
  h: number;
}

export interface TexturePackerFrame {
  /** Where the frame's pixels are in the atlas. */
  frame: XY & WH;
  rotated: false;
  trimmed: boolean;
  /** Where those pixels sat in the original frame. */
  spriteSourceSize: XY & WH;
  /** The original frame's size. */
  sourceSize: WH;
}

export interface TexturePackerJsonHash {
  frames: Record<string, TexturePackerFrame>;
  /** Frame names by animation, in the order they play: PixiJS's Spritesheet reads it (`sheet.animations`); Phaser keeps it as the texture's customData. */
  animations?: Record<string, string[]>;
  meta: { app: string; version: string; image: string; format: 'RGBA8888'; size: WH; scale: '1' };
}

export interface Atlas {
  png: Buffer;
  data: TexturePackerJsonHash;
}

interface Prepared {
  name: string;
  image: RawImage;
  entry: Omit<TexturePackerFrame, 'frame'>;
}

/** Decoding this many frames at once bounds the pixels in flight. */
const DECODE_BATCH = 16;

export async function packAtlas(frames: readonly AtlasFrameInput[], options: AtlasOptions = {}): Promise<Atlas> {
  const { padding, extrude, maxSize, trim, image, animations } = checkOptions(options);
  const sorted = checkFrames(frames);
  const animationData = animations && checkAnimations(animations, sorted);
  const prepared: Prepared[] = [];
  for (let start = 0; start < sorted.length; start += DECODE_BATCH) {
    const batch = sorted.slice(start, start + DECODE_BATCH);
    prepared.push(...(await Promise.all(batch.map((frame) => prepare(frame, trim)))));
  }
  // Largest first packs tighter; the name decides between equal sizes, so the order is total.
  const order = [...prepared].sort(
    (a, b) =>
      Math.max(b.image.width, b.image.height) - Math.max(a.image.width, a.image.height) ||
      b.image.width * b.image.height - a.image.width * a.image.height ||
      compareNames(a.name, b.name),
  );
  const cells = order.map((frame) => ({
    width: frame.image.width + 2 * extrude + padding,
    height: frame.image.height + 2 * extrude + padding,
  }));
  const packed = packInSmallestBin(cells, order, padding, extrude, maxSize);
  const atlas = blank(packed.width, packed.height);
  const placed = new Map<string, XY & WH>();
  order.forEach((frame, index) => {
    const x = packed.places[index].x + extrude;
    const y = packed.places[index].y + extrude;
    blitExtruded(frame.image, atlas, x, y, extrude);
    placed.set(frame.name, { x, y, w: frame.image.width, h: frame.image.height });
  });
  const data: TexturePackerJsonHash = {
    frames: Object.fromEntries(prepared.map((frame) => [frame.name, { frame: placed.get(frame.name)!, ...frame.entry }])),
    ...(animationData ? { animations: animationData } : {}),
    meta: { app: 'assetgen', version: '1.0', image, format: 'RGBA8888', size: { w: atlas.width, h: atlas.height }, scale: '1' },
  };
  return { png: await encodeImage(atlas, 'png'), data };
}

/** The data file's text: two-space JSON and a final newline, keys in a fixed order. */
export const atlasJson = (data: TexturePackerJsonHash): string => `${JSON.stringify(data, null, 2)}\n`;

async function prepare(frame: AtlasFrameInput, trim: boolean): Promise<Prepared> {
  const decoded = await decodeImage(frame.bytes, `frame ${JSON.stringify(frame.name)}`);
  // Where the decoded pixels sit in their source: a frame trimmed before packing says so.
  const { placed } = frame;
  const fits = placed && placed.width === decoded.width && placed.height === decoded.height;
  const at = fits ? { x: placed.x, y: placed.y } : { x: 0, y: 0 };
  const sourceSize = fits ? { w: placed.sourceWidth, h: placed.sourceHeight } : { w: decoded.width, h: decoded.height };
  const { image, trim: record } = trim
    ? trimImage(decoded)
    : { image: decoded, trim: { left: 0, top: 0, width: decoded.width, height: decoded.height } };
  const trimmed = image.width !== sourceSize.w || image.height !== sourceSize.h;
  const spriteSourceSize = { x: at.x + record.left, y: at.y + record.top, w: record.width, h: record.height };
  return { name: frame.name, image, entry: { rotated: false, trimmed, spriteSourceSize, sourceSize } };
}

/** Each animation's frames, every name checked against the atlas's frames (unknown ones named). */
function checkAnimations(
  animations: Readonly<Record<string, readonly string[]>>,
  frames: readonly AtlasFrameInput[],
): Record<string, string[]> {
  const names = new Set(frames.map((frame) => frame.name));
  const checked: Record<string, string[]> = {};
  for (const [animation, list] of Object.entries(animations)) {
    if (!animation || animation.length > ATLAS_LIMITS.maxNameLength)
      throw new ImagingError('bad_atlas_input', `an animation's name must be 1 to ${ATLAS_LIMITS.maxNameLength} characters`);
    if (!list.length) throw new ImagingError('bad_atlas_input', `animation ${JSON.stringify(animation)} has no frames`);
    const unknown = [...new Set(list.filter((name) => !names.has(name)))];
    if (unknown.length)
      throw new ImagingError(
        'bad_atlas_input',
        `animation ${JSON.stringify(animation)} names frames the atlas does not have: ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
      );
    Object.defineProperty(checked, animation, { value: [...list], enumerable: true, writable: true, configurable: true });
  }
  return checked;
}

/** The smallest power-of-two bin (by area; then the squarer, then the wider) that holds every cell. */
function packInSmallestBin(cells: Size[], order: readonly Prepared[], padding: number, extrude: number, maxSize: number) {
  // Each cell carries its padding on its right and bottom; the bin gets the same, cut off at the end.
  const widest = Math.max(...cells.map((cell) => cell.width)) - padding;
  const tallest = Math.max(...cells.map((cell) => cell.height)) - padding;
  const area = cells.reduce((sum, cell) => sum + cell.width * cell.height, 0);
  const sides: number[] = [];
  for (let side = 1; side <= maxSize; side *= 2) sides.push(side);
  const candidates = sides
    .flatMap((width) => sides.map((height) => ({ width, height })))
    .filter(
      ({ width, height }) =>
        width >= widest && height >= tallest && (width + padding) * (height + padding) >= area && width * height <= IMAGE_LIMITS.maxPixels,
    )
    .sort(
      (a, b) =>
        a.width * a.height - b.width * b.height ||
        Math.abs(Math.log2(a.width / a.height)) - Math.abs(Math.log2(b.width / b.height)) ||
        b.width - a.width,
    );
  for (const { width, height } of candidates) {
    const places = packMaxRects(cells, width + padding, height + padding);
    if (places) return { width, height, places };
  }
  const tooLarge = order.find((frame) => Math.max(frame.image.width, frame.image.height) + 2 * extrude > maxSize);
  const why = tooLarge
    ? `frame ${JSON.stringify(tooLarge.name)} is ${tooLarge.image.width}×${tooLarge.image.height}, with extrude ${extrude}`
    : `${cells.length} frames take ${area.toLocaleString('en-US')} pixels with padding and extrude`;
  throw new ImagingError(
    'atlas_too_small',
    `the frames do not fit in a ${maxSize}×${maxSize} atlas (${why}): raise maxSize, lower padding or extrude, or split the sheet`,
  );
}

/** Code-unit order: the same in every locale. */
const compareNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function checkFrames(frames: readonly AtlasFrameInput[]): AtlasFrameInput[] {
  if (frames.length === 0) throw new ImagingError('bad_atlas_input', 'an atlas needs at least one frame');
  if (frames.length > ATLAS_LIMITS.maxFrames) {
    throw new ImagingError('bad_atlas_input', `an atlas holds at most ${ATLAS_LIMITS.maxFrames} frames, not ${frames.length}`);
  }
  const sorted = [...frames].sort((a, b) => compareNames(a.name, b.name));
  sorted.forEach((frame, index) => {
    if (typeof frame.name !== 'string' || frame.name.length === 0 || frame.name.length > ATLAS_LIMITS.maxNameLength) {
      throw new ImagingError(
        'bad_atlas_input',
        `a frame's name must be 1 to ${ATLAS_LIMITS.maxNameLength} characters, got ${JSON.stringify(frame.name)}`,
      );
    }
    if (index > 0 && sorted[index - 1].name === frame.name)
      throw new ImagingError('bad_atlas_input', `two frames are named ${JSON.stringify(frame.name)}`);
  });
  return sorted;
}

function checkOptions(options: AtlasOptions): Required<Omit<AtlasOptions, 'animations'>> & Pick<AtlasOptions, 'animations'> {
  const merged = { ...ATLAS_DEFAULTS, ...options };
  for (const key of ['padding', 'extrude', 'maxSize'] as const) {
    const problem = atlasOptionProblem(key, merged[key]);
    if (problem) throw new ImagingError('bad_atlas_input', `the atlas's ${key} ${problem}, got ${String(merged[key])}`);
  }
  if (typeof merged.image !== 'string' || merged.image.length === 0)
    throw new ImagingError('bad_atlas_input', `the atlas's image name must be a file name`);
  return { ...merged, trim: merged.trim === true, animations: merged.animations };
}
