// The mock's generated image: a 128×128 PNG of the 16×16 pixel art (pixel-art.ts), written with a
// deflate stream of one fixed shape, so every image has the same size (PNG_BYTES).
import { PNG_SIGNATURE } from '../../files/media.js';
import { pngChunk, pngHeader } from '../../files/png.js';
import { agentStyle, picture } from './pixel-art.js';
import { cached } from './render-cache.js';

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
 * A 128×128 PNG (4-bit palette of five colours) of 16×16 procedural pixel art, deterministic for
 * (agent, prompt, variation); each variation is another picture of the prompt (see `picture`).
 */
export function renderPng(agentId: string, prompt: string, variation = 0): Buffer {
  return cached(`png\u0000${agentId}\u0000${prompt}\u0000${variation}`, () => drawPng(agentId, prompt, variation));
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

function drawPng(agentId: string, prompt: string, variation: number): Buffer {
  const { colours, grid } = picture(`${agentId}\u0000${prompt}`, agentStyle(agentId), variation);
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
