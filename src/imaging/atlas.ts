// Sprite-sheet atlases: frames packed into one PNG plus its data in TexturePacker's JSON-hash format,
// which Phaser 3 (`this.load.atlas`) and PixiJS (`Assets.load` of the JSON) read natively; a set
// larger than one page packs several pages, with the data both engines load as one atlas (Phaser's
// multiatlas, PixiJS's related multi-packs). The same frames and options give the same bytes: frames
// are sorted by name, the packer breaks every tie by size and name, and the PNG encoder's settings
// are fixed.
//
// Memory stays bounded whatever the set's size: frames are read a group at a time to measure them
// (their pixels kept only within a budget), and a page's PNG is written band of rows by band, each
// frame decoded again when a band needs it and the budget did not keep it.
import { decodedPixels, donePixels } from './collect.js';
import { ImagingError } from './errors.js';
import { compareNames, layoutAtlas, occupancy, type LayoutFrame, type PageLayout } from './pages.js';
import { pngStream } from './png-stream.js';
import { trimImage } from './post.js';
import { ATLAS_LIMITS, atlasOptionProblem, IMAGE_LIMITS } from './limits.js';
import { decodeImage, INPUT_FORMATS, readPngHeader, type RawImage } from './raw.js';
import { loadSharp } from './sharp.js';

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
  placed?: Placement;
}

/** Where a frame's pixels sat in its source (the lock's trim record, pipeline/records.ts TrimPlacement). */
export interface Placement {
  x: number;
  y: number;
  width: number;
  height: number;
  sourceWidth: number;
  sourceHeight: number;
}

/** A frame read when it is needed: to measure it, and again to draw it unless its pixels were kept. */
export interface AtlasFrameSource {
  name: string;
  read(): Promise<Buffer>;
  /**
   * A frame trimmed before packing (a sliced frame's trim record): where its pixels sat in a source
   * of `sourceWidth` × `sourceHeight`, so spriteSourceSize keeps it where it was. Used only when the
   * image is `width` × `height` (a later resize made it another picture).
   */
  placed?: Placement;
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
  /**
   * Named animations: each a list of frame names, in the order they play (written as the data's
   * `animations`). A sheet with animations fits one page: PixiJS builds a page's animations from
   * that page's frames only.
   */
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

/** Phaser 3's multiatlas: every page's image and frames in one file (`this.load.multiatlas`). */
export interface PhaserMultiAtlas {
  textures: {
    image: string;
    format: 'RGBA8888';
    size: WH;
    scale: 1;
    frames: ({ filename: string } & TexturePackerFrame)[];
  }[];
  meta: { app: string; version: string };
}

/** Frames measured and laid out on pages; each page's PNG is made when asked for. */
export interface AtlasPlan {
  pages: readonly { width: number; height: number }[];
  /** Frame pixels ÷ page pixels. */
  occupancy: number;
  /**
   * Page `index`'s JSON-hash with its image named `image`; `related`: the other pages' data files,
   * as `meta.related_multi_packs` (PixiJS loads them with this one).
   */
  pageData(index: number, image: string, related?: readonly string[]): TexturePackerJsonHash;
  /** Every page for Phaser's multiatlas, page k's image named images[k]. */
  multiAtlas(images: readonly string[]): PhaserMultiAtlas;
  /** Page `index`'s PNG bytes in pieces, made band by band. */
  png(index: number): AsyncGenerator<Buffer>;
}

interface Measured extends LayoutFrame {
  source: AtlasFrameSource;
  entry: Omit<TexturePackerFrame, 'frame'>;
}

/**
 * What making an atlas holds at once. The defaults keep a 5,000-frame sheet within its memory bound
 * (docs/imaging.md "Memory"); a test passes smaller ones to reach the same paths with small images.
 */
export interface AtlasBudgets {
  /** Decoded frames kept from measuring to drawing (and from band to band), at most this many bytes: the rest are read again. */
  keptBytes: number;
  /**
   * More kept for frames that go on into the next band: decoding a large frame again for every band
   * it crosses costs more memory (freed late, see ./collect.ts) than keeping it. At the frame limit
   * (2048²), two side by side on a 4096-wide page.
   */
  crossingBytes: number;
  /** Frames decoded at once: at most this many, and this many bytes of pixels and file (a larger frame goes alone). */
  decodeBatch: number;
  decodeBytes: number;
  /** Bytes of PNG rows made at a time. */
  bandBytes: number;
}

export const ATLAS_BUDGETS: Readonly<AtlasBudgets> = {
  keptBytes: 16 * 1024 * 1024,
  crossingBytes: 32 * 1024 * 1024,
  decodeBatch: 16,
  decodeBytes: 8 * 1024 * 1024,
  bandBytes: 4 * 1024 * 1024,
};

const META = { app: 'assetgen', version: '1.0' } as const;

/** One atlas page, as always: frames that do not fit one maxSize page are an `atlas_too_small` error. */
export async function packAtlas(frames: readonly AtlasFrameInput[], options: AtlasOptions = {}): Promise<Atlas> {
  const image = checkOptions(options).image;
  const plan = await planAtlas(
    frames.map((frame) => ({ name: frame.name, read: async () => frame.bytes, ...(frame.placed ? { placed: frame.placed } : {}) })),
    { ...options, pages: false },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of plan.png(0)) chunks.push(chunk);
  return { png: Buffer.concat(chunks), data: plan.pageData(0, image) };
}

/**
 * Measures the frames and lays them out: on one page when they fit one (exactly as packAtlas), else,
 * with `pages`, on several pages of at most maxSize a side; else an `atlas_too_small` error.
 */
export async function planAtlas(
  frames: readonly AtlasFrameSource[],
  options: Omit<AtlasOptions, 'image'> & { pages?: boolean } = {},
  budgets: Readonly<AtlasBudgets> = ATLAS_BUDGETS,
): Promise<AtlasPlan> {
  const { padding, extrude, maxSize, trim, animations } = checkOptions(options);
  const checked = checkFrames(frames);
  const animationData = animations && checkAnimations(animations, checked);
  const kept = new Kept(budgets.keptBytes);
  const measured = await measure(checked, trim, kept, budgets);
  const layout = layoutAtlas(measured, { padding, extrude, maxSize, pages: options.pages === true });
  if (animationData && layout.length > 1)
    throw new ImagingError(
      'atlas_too_small',
      `the frames take ${layout.length} pages of ${maxSize}² and the sheet has animations, which PixiJS plays from one page: raise maxSize (up to ${IMAGE_LIMITS.maxSide}) or split the sheet`,
    );
  const placeOf = new Map<string, { page: number; x: number; y: number }>();
  layout.forEach((page, index) => page.places.forEach(({ frame, x, y }) => placeOf.set(measured[frame].name, { page: index, x, y })));
  /** Page `index`'s frames in name order, each with its rectangle. */
  const framesOn = (index: number): [string, TexturePackerFrame][] =>
    measured
      .filter((frame) => placeOf.get(frame.name)!.page === index)
      .map((frame) => {
        const { x, y } = placeOf.get(frame.name)!;
        return [frame.name, { frame: { x, y, w: frame.width, h: frame.height }, ...frame.entry }];
      });
  const size = (index: number): WH => ({ w: layout[index].width, h: layout[index].height });
  return {
    pages: layout.map(({ width, height }) => ({ width, height })),
    occupancy: occupancy(measured, layout),
    pageData(index, image, related) {
      const meta = { ...META, image, format: 'RGBA8888' as const, size: size(index), scale: '1' as const };
      return {
        frames: Object.fromEntries(framesOn(index)),
        ...(animationData ? { animations: animationData } : {}),
        meta: related ? { ...meta, related_multi_packs: [...related] } : meta,
      };
    },
    multiAtlas(images) {
      return {
        textures: layout.map((_, index) => ({
          image: images[index],
          format: 'RGBA8888' as const,
          size: size(index),
          scale: 1 as const,
          frames: framesOn(index).map(([filename, entry]) => ({ filename, ...entry })),
        })),
        meta: { ...META },
      };
    },
    png: (index) => pngStream(layout[index].width, layout[index].height, bands(layout[index], measured, { extrude, trim }, kept, budgets)),
  };
}

/** The data file's text: two-space JSON and a final newline, keys in a fixed order. */
export const atlasJson = (data: TexturePackerJsonHash | PhaserMultiAtlas): string => `${JSON.stringify(data, null, 2)}\n`;

/** Decoded frames kept by name while they fit `budget` bytes. */
class Kept {
  private images = new Map<string, RawImage>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(name: string): RawImage | undefined {
    return this.images.get(name);
  }

  hasRoom(bytes: number): boolean {
    return this.bytes + bytes <= this.budget;
  }

  /** Keeps the image when there is room for it (`room` more bytes than the budget: a frame going on into the next band). */
  offer(name: string, image: RawImage, room = 0): void {
    if (this.images.has(name) || this.bytes + image.data.length > this.budget + room) return;
    this.images.set(name, image);
    this.bytes += image.data.length;
  }

  drop(name: string): void {
    const image = this.images.get(name);
    if (!image) return;
    this.images.delete(name);
    this.bytes -= image.data.length;
  }
}

/** Where a `width` × `height` image sits in its source: its placement when it fits it (else the image is its own source). */
function sourceOf(width: number, height: number, placed: Placement | undefined): { at: XY; size: WH } {
  if (placed && placed.width === width && placed.height === height)
    return { at: { x: placed.x, y: placed.y }, size: { w: placed.sourceWidth, h: placed.sourceHeight } };
  return { at: { x: 0, y: 0 }, size: { w: width, h: height } };
}

/** A frame packed whole: placed in its source as its placement says. */
function untrimmed(width: number, height: number, placed?: Placement): Measured['entry'] {
  const { at, size } = sourceOf(width, height, placed);
  return {
    rotated: false,
    trimmed: width !== size.w || height !== size.h,
    spriteSourceSize: { ...at, w: width, h: height },
    sourceSize: size,
  };
}

/** A frame's pixels as the atlas holds them: decoded, and trimmed when trimming. */
async function decodeFrame(
  name: string,
  bytes: Buffer,
  trim: boolean,
  placed?: Placement,
): Promise<{ image: RawImage; entry: Measured['entry'] }> {
  const decoded = await decodeImage(bytes, `frame ${JSON.stringify(name)}`, IMAGE_LIMITS, { onMainThread: true });
  decodedPixels(decoded.data.length);
  if (!trim) return { image: decoded, entry: untrimmed(decoded.width, decoded.height, placed) };
  const { image, trim: record } = trimImage(decoded);
  const { at, size } = sourceOf(decoded.width, decoded.height, placed);
  const trimmed = image.width !== size.w || image.height !== size.h;
  const spriteSourceSize = { x: at.x + record.left, y: at.y + record.top, w: record.width, h: record.height };
  return { image, entry: { rotated: false, trimmed, spriteSourceSize, sourceSize: size } };
}

/**
 * A frame's size from its header, no pixel decoded; past a sheet frame's limit, an error. A file
 * that is not a readable image of an allowed format gets decodeImage's own error (which reads the
 * header first too).
 */
async function frameSize(name: string, bytes: Buffer): Promise<{ width: number; height: number }> {
  // A PNG's header is read here; sharp's metadata (on another thread) only for other formats.
  const png = readPngHeader(bytes);
  const header = png ? { format: 'png', width: png.width, height: png.height } : await sharpHeader(bytes);
  let { width = 0, height = 0 } = header ?? {};
  const readable =
    header?.format !== undefined &&
    INPUT_FORMATS.includes(header.format) &&
    width > 0 &&
    height > 0 &&
    width * height <= IMAGE_LIMITS.maxPixels;
  if (!readable) ({ width, height } = await decodeImage(bytes, `frame ${JSON.stringify(name)}`));
  if (width * height > ATLAS_LIMITS.maxFramePixels) {
    throw new ImagingError(
      'too_large',
      `frame ${JSON.stringify(name)} is ${width}×${height}: an atlas frame has at most ${ATLAS_LIMITS.maxFramePixels.toLocaleString('en-US')} pixels (2048×2048); scale it down with a resize post step`,
    );
  }
  return { width, height };
}

/** sharp's reading of a file's header: its format and size, or undefined when sharp cannot read it. */
async function sharpHeader(bytes: Buffer): Promise<{ format?: string; width?: number; height?: number } | undefined> {
  const sharp = await loadSharp();
  return sharp(bytes, { animated: false })
    .metadata()
    .catch(() => undefined);
}

/** Runs `work` on the items in groups of at most `decodeBatch` whose bytes add up to `decodeBytes` (one larger item alone). */
async function inGroups<Item>(
  items: AsyncIterable<Item> | Iterable<Item>,
  budgets: Pick<AtlasBudgets, 'decodeBatch' | 'decodeBytes'>,
  bytesOf: (item: Item) => number,
  work: (group: Item[]) => Promise<void>,
) {
  let group: Item[] = [];
  let bytes = 0;
  for await (const item of items) {
    if (group.length && (group.length === budgets.decodeBatch || bytes + bytesOf(item) > budgets.decodeBytes)) {
      await work(group);
      [group, bytes] = [[], 0];
    }
    group.push(item);
    bytes += bytesOf(item);
  }
  if (group.length) await work(group);
}

/**
 * Every frame's size (and trim) in name order, a group of frames read at a time: a frame is decoded
 * only when trimming needs its pixels (and kept while there is room); else its header is enough,
 * and it is decoded once, when its page is drawn.
 */
async function measure(frames: readonly AtlasFrameSource[], trim: boolean, kept: Kept, budgets: AtlasBudgets): Promise<Measured[]> {
  const measured: Measured[] = [];
  async function* read() {
    for (const source of frames) {
      const bytes = await source.read();
      const { width, height } = await frameSize(source.name, bytes);
      yield { source, bytes, width, height, decode: trim };
    }
  }
  const bytesOf = (item: { bytes: Buffer; width: number; height: number; decode: boolean }) =>
    item.bytes.length + (item.decode ? item.width * item.height * 4 : 0);
  await inGroups(read(), budgets, bytesOf, async (group) => {
    const done = await Promise.all(
      group.map(async ({ source, bytes, width, height, decode }): Promise<Measured> => {
        if (!decode) return { name: source.name, width, height, source, entry: untrimmed(width, height, source.placed) };
        const { image, entry } = await decodeFrame(source.name, bytes, trim, source.placed);
        kept.offer(source.name, image);
        return { name: source.name, width: image.width, height: image.height, source, entry };
      }),
    );
    measured.push(...done);
  });
  return measured;
}

/**
 * A page's PNG rows, a band at a time: each row its filter byte (0) and its pixels. The frames a band
 * crosses are drawn into it (their rows in the band, and the extrusion's), decoded a group at a time
 * unless kept; a frame that goes on into the next band is kept if there is room, else read again.
 */
async function* bands(
  page: PageLayout,
  measured: readonly Measured[],
  { extrude, trim }: { extrude: number; trim: boolean },
  kept: Kept,
  budgets: AtlasBudgets,
): AsyncGenerator<Buffer> {
  const rowBytes = 1 + page.width * 4;
  const bandRows = Math.max(1, Math.floor(budgets.bandBytes / rowBytes));
  const placed = page.places.map(({ frame, x, y }) => ({ frame: measured[frame], x, y })).sort((a, b) => a.y - b.y || a.x - b.x);
  let next = 0;
  let crossing: typeof placed = [];
  for (let top = 0; top < page.height; top += bandRows) {
    const bottom = Math.min(page.height, top + bandRows);
    const band = Buffer.alloc(rowBytes * (bottom - top));
    decodedPixels(band.length);
    while (next < placed.length && placed[next].y - extrude < bottom) crossing.push(placed[next++]);
    const goesOn = (item: (typeof placed)[number]) => item.y + item.frame.height + extrude > bottom;
    const bytesOf = (item: (typeof placed)[number]) => (kept.get(item.frame.name) ? 0 : item.frame.width * item.frame.height * 4);
    await inGroups(crossing, budgets, bytesOf, async (group) => {
      const images = await Promise.all(
        group.map(async ({ frame }) => kept.get(frame.name) ?? (await decodeFrame(frame.name, await frame.source.read(), trim)).image),
      );
      group.forEach((item, index) => {
        const image = images[index];
        if (image.width !== item.frame.width || image.height !== item.frame.height)
          throw new ImagingError('damaged', `frame ${JSON.stringify(item.frame.name)} changed while the atlas was being made`);
        drawRows(image, band, rowBytes, item.x, item.y, top, bottom, extrude);
        if (goesOn(item)) kept.offer(item.frame.name, image, budgets.crossingBytes);
        else kept.drop(item.frame.name);
      });
    });
    crossing = crossing.filter(goesOn);
    yield band;
  }
  donePixels();
}

/** Draws the rows of a frame (top-left at x, y, extruded) that fall in the band of page rows [top, bottom). */
function drawRows(
  image: RawImage,
  band: Buffer,
  rowBytes: number,
  x: number,
  y: number,
  top: number,
  bottom: number,
  extrude: number,
): void {
  const width = image.width * 4;
  for (let row = Math.max(top, y - extrude); row < Math.min(bottom, y + image.height + extrude); row++) {
    const from = Math.min(image.height - 1, Math.max(0, row - y)) * width;
    const to = (row - top) * rowBytes + 1 + x * 4;
    image.data.copy(band, to, from, from + width);
    for (let step = 1; step <= extrude; step++) {
      image.data.copy(band, to - step * 4, from, from + 4);
      image.data.copy(band, to + width + (step - 1) * 4, from + width - 4, from + width);
    }
  }
}

function checkFrames<Frame extends { name: string }>(frames: readonly Frame[]): Frame[] {
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
/** Each animation's frames, every name checked against the atlas's frames (unknown ones named). */
function checkAnimations(
  animations: Readonly<Record<string, readonly string[]>>,
  frames: readonly { name: string }[],
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
