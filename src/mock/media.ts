// Real asset bytes, made in code: a PNG of procedural pixel art that depends on (agent, prompt),
// and an animated GIF for video jobs (a playable animation; the mock has no video encoder, and a
// GIF is decoded by every browser and image viewer). Deterministic: same input, same bytes.
import { createHash } from 'node:crypto';
import { PNG_SIGNATURE, pngChunk, pngHeader } from '../files/png.js';

type Rgb = readonly [number, number, number];

/** A small deterministic PRNG (mulberry32) seeded from a hash of the inputs. */
export function seededRandom(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): number => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** Five colours: background, shadow, base, highlight, outline — hue picked by the prompt. */
function palette(random: () => number): Rgb[] {
  const hue = random() * 360;
  const accent = (hue + 150 + random() * 60) % 360;
  return [hsl((hue + 200) % 360, 0.25, 0.12), hsl(hue, 0.55, 0.3), hsl(hue, 0.65, 0.5), hsl(accent, 0.8, 0.7), [12, 10, 16]];
}

/** A 16×16 grid of palette indices: a mirrored sprite, a seamless tile, or an icon on a disc. */
function pixelGrid(kind: string, random: () => number): number[][] {
  const size = 16;
  const grid = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  if (kind === 'tile') {
    // Bricks with per-brick shading and moss speckles; wraps at the edges so tiles repeat.
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const row = Math.floor(y / 4);
        const shifted = (x + (row % 2) * 4) % size;
        const mortar = y % 4 === 3 || shifted % 8 === 7;
        grid[y][x] = mortar ? 1 : random() < 0.12 ? 3 : 2;
      }
    }
    return grid;
  }
  // Mirrored sprite: fill the left half at random with a body-shaped density, mirror it, outline it.
  for (let y = 2; y < size - 2; y++) {
    for (let x = 2; x < size / 2; x++) {
      const density = 0.35 + 0.5 * (x / (size / 2)) - (0.15 * Math.abs(y - size / 2)) / (size / 2);
      if (random() < density) {
        const shade = random() < 0.2 ? 3 : random() < 0.5 ? 2 : 1;
        grid[y][x] = shade;
        grid[y][size - 1 - x] = shade;
      }
    }
  }
  const outlined = grid.map((row) => [...row]);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (grid[y][x] !== 0) continue;
      const touches = [
        [0, 1],
        [1, 0],
        [0, -1],
        [-1, 0],
      ].some(([dx, dy]) => (grid[y + dy]?.[x + dx] ?? 0) > 0);
      if (touches) outlined[y][x] = 4;
    }
  }
  if (kind === 'icon') {
    // A disc behind the icon, in the shadow colour.
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const inside = (x - 7.5) ** 2 + (y - 7.5) ** 2 < 7.6 ** 2;
        if (outlined[y][x] === 0 && inside) outlined[y][x] = 1;
      }
    }
  }
  return outlined;
}

function agentStyle(agentId: string): string {
  if (/tile|terrain|texture/.test(agentId)) return 'tile';
  if (/icon/.test(agentId)) return 'icon';
  return 'sprite';
}

// ── PNG ──────────────────────────────────────────────────────────────────────────────────────────
export const IMAGE_SIZE = 128;
const GRID = 16;
const CELL = IMAGE_SIZE / GRID;
const PALETTE_ENTRIES = 5;
/** A scanline: its filter byte, then two 4-bit palette indices per byte (a cell's 8 pixels: 4 equal bytes). */
const ROW_BYTES = 1 + IMAGE_SIZE / 2;
const RAW_BYTES = ROW_BYTES * IMAGE_SIZE;

/**
 * The pixels as one fixed-Huffman deflate block whose shape never depends on the picture: per
 * grid row, its first scanline as literals (each cell a byte, then a 3-byte copy of it) and the
 * cell's other 7 scanlines as copies of it (258 + 197 bytes, 65 back). Every literal is below 144
 * (8 bits), so every image compresses to the same size — a generation knows its file's size
 * without drawing it (drawing and zlib cost a millisecond a call); files are drawn when fetched.
 */
const DEFLATE_BITS = 3 + GRID * (8 + GRID * (8 + 7 + 5) + (8 + 5 + 5) + (8 + 5 + 5 + 5)) + 7;
const IDAT_BYTES = 2 + Math.ceil(DEFLATE_BITS / 8) + 4;
/** Signature, then IHDR, PLTE, IDAT and IEND (12 bytes of frame each). */
export const PNG_BYTES = PNG_SIGNATURE.length + (12 + 13) + (12 + 3 * PALETTE_ENTRIES) + (12 + IDAT_BYTES) + 12;

/** Deflate's bit order: values least significant bit first, Huffman codes most significant first. */
class BitWriter {
  readonly bytes: Buffer;
  #bit = 0;
  constructor(size: number) {
    this.bytes = Buffer.alloc(size);
  }
  value(value: number, bits: number): void {
    for (let i = 0; i < bits; i++, this.#bit++) if ((value >> i) & 1) this.bytes[this.#bit >> 3] |= 1 << (this.#bit & 7);
  }
  code(code: number, bits: number): void {
    for (let i = bits - 1; i >= 0; i--, this.#bit++) if ((code >> i) & 1) this.bytes[this.#bit >> 3] |= 1 << (this.#bit & 7);
  }
  get bitLength(): number {
    return this.#bit;
  }
}

/** Fixed-Huffman deflate of the 16 grid rows' first scanlines (each cell a palette index). */
function deflateGrid(grid: number[][]): Buffer {
  const out = new BitWriter(Math.ceil(DEFLATE_BITS / 8));
  const literal = (byte: number): void => out.code(0x30 + byte, 8); // 0–143: 8-bit codes from 0x30
  out.value(1, 1); // the final block
  out.value(1, 2); // fixed Huffman codes
  for (const cells of grid) {
    literal(0); // filter: none
    for (const index of cells) {
      literal((index << 4) | index);
      out.code(257 - 256, 7); // length 3
      out.code(0, 5); // distance 1
    }
    out.code(285 - 280 + 0xc0, 8); // length 258
    out.code(12, 5); // distance 65–96 …
    out.value(0, 5); // … 65: one scanline back
    out.code(283 - 280 + 0xc0, 8); // length 195–226 …
    out.value(197 - 195, 5); // … 197 (258 + 197 = 7 scanlines)
    out.code(12, 5);
    out.value(0, 5);
  }
  out.code(0, 7); // end of block
  if (out.bitLength !== DEFLATE_BITS) throw new Error('the PNG encoder wrote an unexpected size');
  return out.bytes;
}

/**
 * Rendered files by (kind, agent, prompt): each distinct asset is drawn once per GET burst.
 * Bounded (least recently used goes first), since prompts are endless.
 */
const RENDER_CACHE_ENTRIES = 256;
const renderCache = new Map<string, Buffer>();

function cached(key: string, render: () => Buffer): Buffer {
  const hit = renderCache.get(key);
  if (hit) {
    renderCache.delete(key);
    renderCache.set(key, hit);
    return hit;
  }
  const bytes = render();
  renderCache.set(key, bytes);
  if (renderCache.size > RENDER_CACHE_ENTRIES) renderCache.delete(renderCache.keys().next().value!);
  return bytes;
}

/** A 128×128 PNG (4-bit palette of five colours) of 16×16 procedural pixel art, deterministic for (agent, prompt). */
export function renderPng(agentId: string, prompt: string): Buffer {
  return cached(`png\u0000${agentId}\u0000${prompt}`, () => drawPng(agentId, prompt));
}

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  // 5552 bytes is the most zlib sums before a modulo can overflow 32 bits.
  for (let start = 0; start < bytes.length; start += 5552) {
    const end = Math.min(bytes.length, start + 5552);
    for (let i = start; i < end; i++) {
      a += bytes[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function drawPng(agentId: string, prompt: string): Buffer {
  const random = seededRandom(`${agentId}\u0000${prompt}`);
  const colours = palette(random);
  const grid = pixelGrid(agentStyle(agentId), random);
  // The scanlines themselves, for the zlib checksum.
  const raw = Buffer.alloc(RAW_BYTES);
  grid.forEach((cells, row) => {
    const first = row * CELL * ROW_BYTES;
    cells.forEach((index, column) =>
      raw.fill((index << 4) | index, first + 1 + (column * CELL) / 2, first + 1 + ((column + 1) * CELL) / 2),
    );
    for (let copy = 1; copy < CELL; copy++) raw.copy(raw, first + copy * ROW_BYTES, first, first + ROW_BYTES);
  });
  const idat = Buffer.concat([Buffer.from([0x78, 0x01]), deflateGrid(grid), Buffer.alloc(4)]); // zlib: deflate, 32 KiB window
  idat.writeUInt32BE(adler32(raw), idat.length - 4);
  const header = pngHeader(IMAGE_SIZE, IMAGE_SIZE, 4, 3); // 4-bit palette indices
  const plte = Buffer.alloc(3 * PALETTE_ENTRIES);
  colours.forEach((colour, i) => plte.set(colour, i * 3));
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('PLTE', plte),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ── Animated GIF ─────────────────────────────────────────────────────────────────────────────────
export const VIDEO_SIZE = 96;
export const VIDEO_CONTENT_TYPE = 'image/gif';
export const VIDEO_EXTENSION = '.gif';

/**
 * LZW for GIF without a growing dictionary: a clear code every few codes keeps the code size
 * fixed. Larger than optimal, and trivially correct for every decoder.
 */
function lzwUncompressed(indices: Uint8Array, minCodeSize: number): Buffer {
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  const codeSize = minCodeSize + 1;
  const bytes: number[] = [];
  let accumulator = 0;
  let bits = 0;
  const emit = (code: number): void => {
    accumulator |= code << bits;
    bits += codeSize;
    while (bits >= 8) {
      bytes.push(accumulator & 0xff);
      accumulator >>>= 8;
      bits -= 8;
    }
  };
  // After a clear, a decoder adds one entry per code from the second on; stay below 2^codeSize.
  const codesPerClear = (1 << codeSize) - clear - 4;
  for (let i = 0; i < indices.length; i++) {
    if (i % codesPerClear === 0) emit(clear);
    emit(indices[i]);
  }
  emit(end);
  if (bits > 0) bytes.push(accumulator & 0xff);
  // Data sub-blocks of at most 255 bytes, then a zero-length terminator.
  const blocks: number[] = [minCodeSize];
  for (let i = 0; i < bytes.length; i += 255) {
    const part = bytes.slice(i, i + 255);
    blocks.push(part.length, ...part);
  }
  blocks.push(0);
  return Buffer.from(blocks);
}

/** A looping 96×96 animated GIF (12 frames): the prompt's sprite bobbing over a scrolling floor. */
export function renderVideo(agentId: string, prompt: string, frames = 12): Buffer {
  return cached(`gif\u0000${agentId}\u0000${prompt}\u0000${frames}`, () => drawVideo(agentId, prompt, frames));
}

function drawVideo(agentId: string, prompt: string, frames: number): Buffer {
  const random = seededRandom(`video\u0000${agentId}\u0000${prompt}`);
  const colours = palette(random);
  const sprite = pixelGrid('sprite', random);
  const colourTable = Buffer.alloc(8 * 3); // 8 entries: 2^(2+1)
  colours.forEach((colour, i) => colourTable.set(colour, i * 3));
  const scale = 4;
  const parts: Buffer[] = [];
  const screen = Buffer.alloc(13);
  screen.write('GIF89a', 0, 'ascii');
  screen.writeUInt16LE(VIDEO_SIZE, 6);
  screen.writeUInt16LE(VIDEO_SIZE, 8);
  screen[10] = 0x80 | (2 << 4) | 2; // global colour table, 3-bit colour resolution, 8 entries
  parts.push(screen, colourTable);
  // NETSCAPE2.0 application extension: loop forever.
  parts.push(Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'ascii'), 0x03, 0x01, 0x00, 0x00, 0x00]));
  for (let frame = 0; frame < frames; frame++) {
    const pixels = new Uint8Array(VIDEO_SIZE * VIDEO_SIZE);
    const bob = Math.round(Math.sin((frame / frames) * Math.PI * 2) * 4);
    const floorY = VIDEO_SIZE - 16;
    for (let y = 0; y < VIDEO_SIZE; y++) {
      for (let x = 0; x < VIDEO_SIZE; x++) {
        let index = 0;
        if (y >= floorY) index = (x + frame * 4) % 16 < 8 ? 1 : 2;
        const sx = Math.floor((x - 16) / scale);
        const sy = Math.floor((y - 8 - bob) / scale);
        const value = sprite[sy]?.[sx];
        if (x >= 16 && value !== undefined && value !== 0) index = value;
        pixels[y * VIDEO_SIZE + x] = index;
      }
    }
    // Graphic control extension: 8/100 s per frame.
    parts.push(Buffer.from([0x21, 0xf9, 0x04, 0x00, 8, 0, 0x00, 0x00]));
    const descriptor = Buffer.alloc(10);
    descriptor[0] = 0x2c;
    descriptor.writeUInt16LE(VIDEO_SIZE, 5);
    descriptor.writeUInt16LE(VIDEO_SIZE, 7);
    parts.push(descriptor, lzwUncompressed(pixels, 3));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}
