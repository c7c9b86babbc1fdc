// Inline previews: the exact bytes of each protocol, the decoders (PNG, the first frame of a GIF),
// detection from the environment, and that nothing a file holds can make a preview throw.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { renderVideo } from '../../src/mock/media/gif.js';
import { seededRandom } from '../../src/mock/media/pixel-art.js';
import { renderPng } from '../../src/mock/media/png.js';
import { barePreview } from '../../src/program.cjs';
import { detectProtocol, resolveMode } from '../../src/ui/preview/detect.js';
import { KITTY_CHUNK, sixelImage } from '../../src/ui/preview/encode.js';
import { decodeGifFirstFrame } from '../../src/ui/preview/gif.js';
import { PreviewError, type Pixels } from '../../src/ui/preview/image.js';
import { MAX_PREVIEWS, previewSaved, renderImage, type PreviewTarget } from '../../src/ui/preview/index.js';
import { decodePng, encodePng } from '../../src/ui/preview/png.js';

const ESC = '\u001b';

// ── fixtures built here, byte by byte ─────────────────────────────────────────────────────────────
function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])));
  return Buffer.concat([head, body, crc]);
}

/** A PNG from already filtered rows (each starting with its filter byte). */
function png(width: number, height: number, depth: number, colourType: number, rows: number[][], extra: Buffer[] = []): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = depth;
  header[9] = colourType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...extra,
    chunk('IDAT', deflateSync(Buffer.from(rows.flat()))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const RED = [255, 0, 0, 255];
const BLUE = [0, 0, 255, 255];
const CLEAR = [0, 0, 0, 0];
const pixels = (width: number, height: number, list: number[][]): Pixels => ({ width, height, data: Uint8Array.from(list.flat()) });

/** 3×2: red red blue / red clear blue, as an RGBA PNG written with the "up" filter on row 2. */
const SMALL = png(3, 2, 8, 6, [
  [0, ...RED, ...RED, ...BLUE],
  [2, ...[0, 0, 0, 0], ...[1, 0, 0, 1], ...[0, 0, 0, 0]].map((v, i) => (i === 0 ? 2 : v)),
]);
const SMALL_PIXELS = pixels(3, 2, [RED, RED, BLUE, RED, CLEAR, BLUE]);

/** A plain LZW encoder with a growing dictionary (unlike the mock's), to exercise the decoder fully. */
function lzw(indices: number[], minCodeSize: number): Buffer {
  const clear = 1 << minCodeSize;
  let codeSize = minCodeSize + 1;
  let next = clear + 2;
  const table = new Map<string, number>();
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  const emit = (code: number) => {
    acc |= code << bits;
    bits += codeSize;
    while (bits >= 8) {
      out.push(acc & 0xff);
      acc >>>= 8;
      bits -= 8;
    }
  };
  emit(clear);
  let current = String(indices[0]);
  for (const index of indices.slice(1)) {
    const candidate = `${current},${index}`;
    if (table.has(candidate)) {
      current = candidate;
      continue;
    }
    emit(current.includes(',') ? table.get(current)! : Number(current));
    table.set(candidate, next++);
    if (next - 1 === 1 << codeSize && codeSize < 12) codeSize++;
    current = String(index);
  }
  emit(current.includes(',') ? table.get(current)! : Number(current));
  emit(clear + 1);
  if (bits > 0) out.push(acc & 0xff);
  const blocks = [minCodeSize];
  for (let i = 0; i < out.length; i += 255) blocks.push(Math.min(255, out.length - i), ...out.slice(i, i + 255));
  return Buffer.from([...blocks, 0]);
}

/** A 4×4 two-frame GIF: frame 1 stripes of red/blue with index 2 transparent; frame 2 all blue. */
function gif(): Buffer {
  const frame1 = [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 2, 2, 0, 1, 0, 1];
  const screen = Buffer.from([...Buffer.from('GIF89a'), 4, 0, 4, 0, 0x81, 0, 0]); // 4 colours
  const table = Buffer.from([255, 0, 0, 0, 0, 255, 0, 255, 0, 9, 9, 9]);
  const control = Buffer.from([0x21, 0xf9, 4, 0x01, 10, 0, 2, 0]); // transparent index 2
  const descriptor = Buffer.from([0x2c, 0, 0, 0, 0, 4, 0, 4, 0, 0]);
  return Buffer.concat([
    screen,
    table,
    control,
    descriptor,
    lzw(frame1, 2),
    descriptor,
    lzw(new Array(16).fill(1), 2),
    Buffer.from([0x3b]),
  ]);
}

// ── exact bytes per protocol ──────────────────────────────────────────────────────────────────────
describe('preview bytes per protocol', () => {
  it('kitty: one APC with a=T, f=100 (PNG), q=2 (no replies) and r=8 rows; a small PNG is sent as it is', () => {
    expect(renderImage(SMALL, 'kitty')).toBe(`${ESC}_Ga=T,f=100,q=2,r=8;${SMALL.toString('base64')}${ESC}\\\n`);
  });

  it('kitty: base64 over 4096 characters goes in chunks, m=1 on all but the last (m=0)', () => {
    // 64×64 of noise barely compresses: ~16 KiB of base64, five chunks.
    const random = seededRandom('noise');
    const noise = () => Math.floor(random() * 256);
    const rows = Array.from({ length: 64 }, () => [0, ...Array.from({ length: 64 * 3 }, noise)]);
    const file = png(64, 64, 8, 2, rows);
    const data = file.toString('base64');
    expect(data.length).toBeGreaterThan(4 * KITTY_CHUNK);
    const parts: string[] = [];
    for (let at = 0; at < data.length; at += KITTY_CHUNK) parts.push(data.slice(at, at + KITTY_CHUNK));
    const expected =
      parts.map((part, i) => `${ESC}_G${i === 0 ? 'a=T,f=100,q=2,r=8,' : ''}m=${i === parts.length - 1 ? 0 : 1};${part}${ESC}\\`).join('') +
      '\n';
    expect(renderImage(file, 'kitty')).toBe(expected);
    expect(parts).toHaveLength(Math.ceil(data.length / 4096));
  });

  it('iTerm2: OSC 1337 File=inline=1 with the size in bytes and a height of 8 rows, ended by BEL', () => {
    expect(renderImage(SMALL, 'iterm')).toBe(`${ESC}]1337;File=inline=1;size=${SMALL.length};height=8:${SMALL.toString('base64')}\u0007\n`);
  });

  it('sixel: DCS with P2=1, raster size, colour registers in percent, one band painted colour by colour', () => {
    expect(renderImage(SMALL, 'sixel')).toBe(`${ESC}P0;1;0q"1;1;3;2#0;2;100;0;0#1;2;0;0;100#0B@$#1??B${ESC}\\\n`);
  });

  it('sixel: runs of four or more are compressed, bands are separated by "-"', () => {
    const image = pixels(10, 7, new Array(70).fill(RED));
    expect(sixelImage(image)).toBe(`${ESC}P0;1;0q"1;1;10;7#0;2;100;0;0#0!10~-#0!10@${ESC}\\\n`);
  });

  it('sixel: a large image is shrunk to at most 120 pixels tall; many colours are quantised to ≤ 64', () => {
    const width = 300;
    const height = 300;
    const data = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) data.set([i % 256, (i >> 8) % 256, (i * 7) % 256, 255], i * 4);
    const out = sixelImage({ width, height, data });
    expect(out).toContain('"1;1;300;300');
    const shrunk = renderImage(encodePng({ width, height, data }), 'sixel');
    expect(shrunk).toContain('"1;1;100;100');
    expect(shrunk.match(/#\d+;2;/g)!.length).toBeLessThanOrEqual(64);
  });

  it("the bundled mock's image round-trips: kitty gets its exact bytes, sixel its five colours", () => {
    const file = renderPng('sprite-artist', 'rusty sword');
    expect(renderImage(file, 'kitty')).toBe(`${ESC}_Ga=T,f=100,q=2,r=8;${file.toString('base64')}${ESC}\\\n`);
    const sixel = renderImage(file, 'sixel');
    expect(sixel).toContain('"1;1;64;64'); // 128 px halved to fit 120
    expect(sixel.match(/#\d+;2;/g)!.length).toBeLessThanOrEqual(5);
  });
});

// ── decoders ──────────────────────────────────────────────────────────────────────────────────────
describe('PNG decoding', () => {
  it('undoes the row filters of an RGBA PNG', () => {
    expect(decodePng(SMALL)).toEqual(SMALL_PIXELS);
  });

  it('reads 1-bit palette PNGs with tRNS transparency, and 16-bit grey', () => {
    const palette = chunk('PLTE', Buffer.from([10, 20, 30, 200, 100, 50]));
    const trns = chunk('tRNS', Buffer.from([0]));
    const file = png(3, 1, 1, 3, [[0, 0b01000000]], [palette, trns]);
    expect(decodePng(file)).toEqual(
      pixels(3, 1, [
        [10, 20, 30, 0],
        [200, 100, 50, 255],
        [10, 20, 30, 0],
      ]),
    );
    const grey = png(2, 1, 16, 0, [[0, 0x12, 0x34, 0xff, 0xff]]);
    expect(decodePng(grey)).toEqual(
      pixels(2, 1, [
        [0x12, 0x12, 0x12, 255],
        [255, 255, 255, 255],
      ]),
    );
  });

  it('round-trips its own encoder', () => {
    expect(decodePng(encodePng(SMALL_PIXELS))).toEqual(SMALL_PIXELS);
  });

  it('refuses interlaced PNGs with a note', () => {
    const file = png(1, 1, 8, 0, [[0, 0]]);
    file[8 + 8 + 12] = 1; // IHDR interlace byte (the CRC is not checked)
    expect(() => decodePng(file)).toThrow('interlaced');
  });
});

describe('GIF first frame', () => {
  it('decodes the first frame with a growing LZW dictionary and its transparent index', () => {
    const red = [255, 0, 0, 255];
    const blue = [0, 0, 255, 255];
    const frame = decodeGifFirstFrame(gif());
    expect(frame).toEqual(pixels(4, 4, [red, red, blue, blue, red, red, blue, blue, CLEAR, CLEAR, CLEAR, CLEAR, red, blue, red, blue]));
  });

  it('kitty and iTerm2 get the first frame re-encoded as a PNG (not the animation)', () => {
    const file = gif();
    for (const protocol of ['kitty', 'iterm'] as const) {
      const out = renderImage(file, protocol);
      const payload = /[;:]([A-Za-z0-9+/=]+)[^A-Za-z0-9+/=]+$/.exec(out)![1];
      expect(decodePng(Buffer.from(payload, 'base64'))).toEqual(decodeGifFirstFrame(file));
    }
    expect(renderImage(file, 'iterm')).toContain(`File=inline=1;size=${encodePng(decodeGifFirstFrame(file)).length};height=8:`);
  });

  it("decodes the mock's video (an animated GIF): 96×96, background and scrolling floor", () => {
    const frame = decodeGifFirstFrame(renderVideo('clip-maker', 'torch'));
    expect([frame.width, frame.height]).toEqual([96, 96]);
    const at = (x: number, y: number) => Array.from(frame.data.subarray((y * 96 + x) * 4, (y * 96 + x) * 4 + 4));
    expect(at(0, 0)[3]).toBe(255);
    // Frame 0's floor: colour 1 for x % 16 < 8, colour 2 after.
    expect(at(0, 90)).not.toEqual(at(8, 90));
    expect(at(0, 90)).toEqual(at(16, 90));
  });
});

// ── hostile files ─────────────────────────────────────────────────────────────────────────────────
describe('hostile files are a PreviewError, never another exception', () => {
  const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24));
  const cases: [string, Buffer][] = [
    ['random bytes', random],
    ['empty', Buffer.alloc(0)],
    ['a truncated PNG', SMALL.subarray(0, SMALL.length - 20)],
    ['a PNG cut inside its header', SMALL.subarray(0, 20)],
    ['a PNG signature then noise', Buffer.concat([SMALL.subarray(0, 8), random])],
    ['a PNG claiming 100000×100000', png(100000, 100000, 8, 2, [[0]])],
    ['a PNG whose data inflates past its size', png(1, 1, 8, 0, [new Array(100000).fill(0)])],
    ['a truncated GIF', gif().subarray(0, 30)],
    ['a GIF with garbage LZW', Buffer.concat([gif().subarray(0, 41), Buffer.from([2, 4, 0xff, 0xff, 0xff, 0xff, 0])])],
    ['a JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
  ];
  it.each(cases)('%s', (_, bytes) => {
    for (const protocol of ['kitty', 'iterm', 'sixel'] as const) {
      expect(() => renderImage(bytes, protocol)).toThrow(PreviewError);
    }
  });

  it('every prefix and a bit-flipped copy of a PNG and a GIF', () => {
    for (const file of [SMALL, gif(), renderPng('tile-smith', 'moss')]) {
      for (let cut = 0; cut < file.length; cut += 7) {
        try {
          renderImage(file.subarray(0, cut), 'sixel');
        } catch (error) {
          expect(error).toBeInstanceOf(PreviewError);
        }
      }
      const flipped = Buffer.from(file);
      for (let i = 13; i < flipped.length; i += 11) flipped[i] ^= 0xa5;
      try {
        renderImage(flipped, 'kitty');
      } catch (error) {
        expect(error).toBeInstanceOf(PreviewError);
      }
    }
  });
});

// ── detection ─────────────────────────────────────────────────────────────────────────────────────
describe('detection from the environment only', () => {
  const table: [Record<string, string>, string | undefined][] = [
    [{ KITTY_WINDOW_ID: '1', TERM: 'xterm-256color' }, 'kitty'],
    [{ TERM: 'xterm-kitty' }, 'kitty'],
    [{ TERM_PROGRAM: 'ghostty' }, 'kitty'],
    [{ TERM: 'xterm-ghostty' }, 'kitty'],
    [{ TERM_PROGRAM: 'iTerm.app' }, 'iterm'],
    [{ LC_TERMINAL: 'iTerm2', TERM: 'xterm-256color' }, 'iterm'], // over ssh
    [{ TERM_PROGRAM: 'WezTerm' }, 'iterm'],
    [{ TERM_PROGRAM: 'mintty' }, 'iterm'],
    [{ TERM: 'foot' }, 'sixel'],
    [{ TERM: 'foot-extra' }, 'sixel'],
    [{ TERM: 'mlterm' }, 'sixel'],
    [{ TERM: 'contour' }, 'sixel'],
    [{ TERM: 'xterm-sixel' }, 'sixel'],
    [{ TERM_PROGRAM: 'BlackBox' }, 'sixel'],
    [{ TERM: 'xterm-256color' }, undefined],
    [{}, undefined],
    [{ TERM: 'dumb' }, undefined],
    [{ TERM_PROGRAM: 'Apple_Terminal', KITTY_WINDOW_ID: '3' }, undefined], // a leaked variable is not trusted
    [{ TERM_PROGRAM: 'vscode', LC_TERMINAL: 'iTerm2' }, undefined],
    [{ TMUX: '/tmp/tmux-1/default,1,0', TERM_PROGRAM: 'iTerm.app' }, undefined],
    [{ TERM: 'screen-256color', KITTY_WINDOW_ID: '1' }, undefined],
    [{ TERM: 'tmux-256color', TERM_PROGRAM: 'tmux' }, undefined],
    [{ STY: '123.pts-0', TERM: 'xterm-kitty' }, undefined],
    [{ ZELLIJ: '0', TERM: 'foot' }, undefined],
    [{ WT_SESSION: 'abc' }, undefined], // Windows Terminal: sixel only from 1.22, and the variable has no version
  ];
  it.each(table)('%j → %s', (env, protocol) => {
    expect(detectProtocol(env).protocol).toBe(protocol);
  });

  it('names the multiplexer in the reason', () => {
    expect(detectProtocol({ TMUX: 'x' })).toEqual({
      reason: 'inside tmux the terminal cannot be told from the environment (try --preview=kitty|iterm|sixel if it passes images through)',
    });
  });

  it('the flag beats ASSETGEN_PREVIEW; neither means off; a bad env value is a note', () => {
    expect(resolveMode(undefined, {})).toEqual({ mode: 'off' });
    expect(resolveMode(undefined, { ASSETGEN_PREVIEW: 'Kitty' })).toEqual({ mode: 'kitty' });
    expect(resolveMode('off', { ASSETGEN_PREVIEW: 'kitty' })).toEqual({ mode: 'off' });
    expect(resolveMode(undefined, { ASSETGEN_PREVIEW: 'png' })).toEqual({
      note: 'ASSETGEN_PREVIEW=png is not one of auto|kitty|iterm|sixel|off',
    });
  });

  it('a bare --preview becomes --preview=auto unless a value follows (so it never eats a command or prompt)', () => {
    expect(barePreview(['--preview', 'generate', 'x'])).toEqual(['--preview=auto', 'generate', 'x']);
    expect(barePreview(['generate', 'x', '--preview'])).toEqual(['generate', 'x', '--preview=auto']);
    expect(barePreview(['--preview', 'sixel', 'generate'])).toEqual(['--preview', 'sixel', 'generate']);
    expect(barePreview(['--', '--preview'])).toEqual(['--', '--preview']);
  });
});

// ── previewSaved: who gets what ───────────────────────────────────────────────────────────────────
describe('previewSaved', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-preview-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const image = path.join(dir, 'small.png');
  fs.writeFileSync(image, SMALL);
  const broken = path.join(dir, 'broken.png');
  fs.writeFileSync(broken, SMALL.subarray(0, 30));

  function run(files: string[], overrides: Partial<PreviewTarget> = {}): string {
    const stderr = new PassThrough();
    const chunks: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const target: PreviewTarget = {
      stderr,
      stderrIsTTY: true,
      json: false,
      quiet: false,
      env: { TERM: 'xterm-kitty' },
      flag: 'auto',
      display: (file) => path.basename(file),
      ...overrides,
    };
    previewSaved(target, files);
    return Buffer.concat(chunks).toString('utf8');
  }

  it('draws each saved image on a detected terminal', () => {
    expect(run([image])).toBe(renderImage(SMALL, 'kitty'));
  });

  it('writes nothing when stderr is not a terminal, with --json, with -q, or when off', () => {
    expect(run([image], { stderrIsTTY: false })).toBe('');
    expect(run([image], { json: true })).toBe('');
    expect(run([image], { quiet: true })).toBe('');
    expect(run([image], { flag: 'off' })).toBe('');
    expect(run([image], { flag: undefined })).toBe('');
  });

  it('an unsupported terminal gets one line, whatever the number of files', () => {
    expect(run([image, image], { env: { TERM: 'xterm-256color' } })).toBe(
      'Preview not shown: no inline image protocol detected (try --preview=kitty|iterm|sixel)\n',
    );
  });

  it('an explicit protocol is written even where auto would not guess', () => {
    expect(run([image], { flag: 'sixel', env: { TMUX: 'x' } })).toBe(renderImage(SMALL, 'sixel'));
  });

  it('a broken or missing file is a one-line note; the other files are still shown', () => {
    expect(run([broken, path.join(dir, 'gone.png'), image])).toBe(
      'Preview not shown: broken.png is a truncated PNG\nPreview not shown: gone.png could not be read\n' + renderImage(SMALL, 'kitty'),
    );
  });

  it('shows the first few of many files and says how many were left out', () => {
    const out = run(new Array(MAX_PREVIEWS + 2).fill(image));
    expect(out.split(`${ESC}_G`).length - 1).toBe(MAX_PREVIEWS);
    expect(out.endsWith('(2 more saved files not previewed)\n')).toBe(true);
  });

  it('a hostile ASSETGEN_PREVIEW value is shown without its control characters', () => {
    expect(run([image], { flag: undefined, env: { ASSETGEN_PREVIEW: `x${ESC}]0;pwned\u0007` } })).toBe(
      'Preview not shown: ASSETGEN_PREVIEW=x is not one of auto|kitty|iterm|sixel|off\n',
    );
  });
});
