// The assets are real files: a PNG decoded down to its pixels, and a GIF decoded frame by frame
// (LZW included), which is what a player does.
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type MockHandle } from '../support/mock.js';
import { renderVideo } from '../../src/mock/media/gif.js';
import { PNG_BYTES, renderPng } from '../../src/mock/media/png.js';
import { VariationCounter } from '../../src/mock/variations.js';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function decodePng(png: Buffer): { width: number; height: number; colours: number; rgb: string[] } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  let width = 0;
  let height = 0;
  let palette: Buffer = Buffer.alloc(0);
  const idat: Buffer[] = [];
  const types: string[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    expect(png.readUInt32BE(offset + 8 + length), `CRC of ${type}`).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)));
    types.push(type);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[9]]).toEqual([4, 3]); // 4-bit palette
    }
    if (type === 'PLTE') palette = data;
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(types).toEqual(['IHDR', 'PLTE', 'IDAT', 'IEND']);
  expect(offset).toBe(png.length);
  const raw = inflateSync(Buffer.concat(idat));
  const rowBytes = 1 + width / 2;
  expect(raw.length).toBe(height * rowBytes);
  const colours = new Set<string>();
  const rgb: string[] = [];
  const filters = new Set<number>();
  let highestIndex = 0;
  for (let y = 0; y < height; y++) {
    filters.add(raw[y * rowBytes]!);
    for (let x = 0; x < width; x++) {
      const byte = raw[y * rowBytes + 1 + (x >> 1)]!;
      const index = x % 2 === 0 ? byte >> 4 : byte & 0x0f;
      highestIndex = Math.max(highestIndex, index);
      const colour = palette.subarray(index * 3, index * 3 + 3).toString('hex');
      colours.add(colour);
      rgb.push(colour);
    }
  }
  // Checked once per picture, not per pixel (an expect per pixel costs seconds over sixteen pictures).
  expect([...filters]).toEqual([0]);
  expect(highestIndex * 3 + 3).toBeLessThanOrEqual(palette.length);
  return { width, height, colours: colours.size, rgb };
}

/** The share of pixels whose colour differs between two decoded pictures of one size. */
function changedShare(a: string[], b: string[]): number {
  expect(a.length).toBe(b.length);
  return a.filter((colour, i) => colour !== b[i]).length / a.length;
}

/** A minimal GIF decoder: header, colour table, extensions, image descriptors, LZW. */
function decodeGif(gif: Buffer): { width: number; height: number; frames: Uint8Array[]; loops: boolean } {
  expect(gif.toString('ascii', 0, 6)).toBe('GIF89a');
  const width = gif.readUInt16LE(6);
  const height = gif.readUInt16LE(8);
  const packed = gif[10]!;
  const colourCount = packed & 0x80 ? 2 ** ((packed & 7) + 1) : 256;
  let offset = 13 + (packed & 0x80 ? 3 * colourCount : 0);
  const frames: Uint8Array[] = [];
  let loops = false;
  const readBlocks = (): Buffer => {
    const parts: Buffer[] = [];
    for (let size = gif[offset++]!; size > 0; size = gif[offset++]!) {
      parts.push(gif.subarray(offset, offset + size));
      offset += size;
    }
    return Buffer.concat(parts);
  };
  for (;;) {
    const marker = gif[offset++];
    expect(offset, 'the GIF ends with a trailer').toBeLessThanOrEqual(gif.length);
    if (marker === 0x3b) break;
    if (marker === 0x21) {
      const label = gif[offset++];
      const block = readBlocks();
      if (label === 0xff && block.subarray(0, 11).toString('ascii') === 'NETSCAPE2.0') loops = true;
      continue;
    }
    expect(marker).toBe(0x2c);
    const left = gif.readUInt16LE(offset);
    const top = gif.readUInt16LE(offset + 2);
    const w = gif.readUInt16LE(offset + 4);
    const h = gif.readUInt16LE(offset + 6);
    const local = gif[offset + 8]!;
    offset += 9;
    if (local & 0x80) offset += 3 * 2 ** ((local & 7) + 1);
    expect([left, top, w, h]).toEqual([0, 0, width, height]);
    const minCodeSize = gif[offset++]!;
    const pixels = lzwDecode(readBlocks(), minCodeSize, w * h);
    expect(Math.max(...pixels)).toBeLessThan(colourCount);
    frames.push(pixels);
  }
  return { width, height, frames, loops };
}

function lzwDecode(data: Buffer, minCodeSize: number, pixelCount: number): Uint8Array {
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  let codeSize = minCodeSize + 1;
  let dictionary: number[][] = [];
  const reset = (): void => {
    dictionary = Array.from({ length: clear + 2 }, (_, i) => [i]);
    codeSize = minCodeSize + 1;
  };
  reset();
  const out: number[] = [];
  let previous: number[] | undefined;
  let bitPos = 0;
  for (;;) {
    if (bitPos + codeSize > data.length * 8) throw new Error('the LZW data ends before its end code');
    let code = 0;
    for (let i = 0; i < codeSize; i++, bitPos++) code |= ((data[bitPos >> 3]! >> (bitPos & 7)) & 1) << i;
    if (code === clear) {
      reset();
      previous = undefined;
      continue;
    }
    if (code === end) break;
    let entry = dictionary[code];
    if (!entry) {
      expect(previous).toBeDefined();
      entry = [...previous!, previous![0]!];
    }
    out.push(...entry);
    if (previous) dictionary.push([...previous, entry[0]!]);
    previous = entry;
    if (dictionary.length === 1 << codeSize && codeSize < 12) codeSize++;
  }
  expect(out.length).toBe(pixelCount);
  return Uint8Array.from(out);
}

describe('generated images', () => {
  it('are real PNGs with several colours, deterministic and prompt-dependent', () => {
    const sword = renderPng('sprite-artist', 'rusty sword');
    expect(decodePng(sword)).toMatchObject({ width: 128, height: 128 });
    expect(decodePng(sword).colours).toBeGreaterThanOrEqual(3);
    expect(renderPng('sprite-artist', 'rusty sword').equals(sword)).toBe(true);
    expect(renderPng('sprite-artist', 'golden shield').equals(sword)).toBe(false);
    expect(renderPng('tile-smith', 'rusty sword').equals(sword)).toBe(false);
  });

  it('all have the one size a generation announces without drawing them', () => {
    for (const agent of ['sprite-artist', 'tile-smith', 'icon-forge'])
      for (const prompt of ['rusty sword', 'x', 'ü'.repeat(300)])
        for (const variation of [0, 1, 15]) expect(renderPng(agent, prompt, variation).length).toBe(PNG_BYTES);
  });

  // Each paid call is another take of its prompt, as a model's randomness makes it: the takes of one
  // prompt must look different to a person comparing them (another hue and shape), not by a pixel.
  it.each(['sprite-artist', 'tile-smith', 'icon-forge'])(
    '%s: sixteen variations of one prompt are sixteen visibly different pictures',
    (agent) => {
      const takes = Array.from({ length: 16 }, (_, variation) => decodePng(renderPng(agent, 'rusty sword', variation)));
      for (const take of takes) expect(take.colours).toBeGreaterThanOrEqual(3);
      for (let a = 0; a < takes.length; a++)
        for (let b = a + 1; b < takes.length; b++)
          expect(changedShare(takes[a]!.rgb, takes[b]!.rgb), `takes ${a} and ${b}`).toBeGreaterThan(0.3);
      expect(renderPng(agent, 'rusty sword', 3).equals(renderPng(agent, 'rusty sword', 3))).toBe(true);
    },
  );
});

describe('generated videos', () => {
  it('are animated GIFs whose every frame decodes fully, and the frames differ', () => {
    const gif = renderVideo('motion-director', 'torch flicker');
    const { width, height, frames } = decodeGif(gif);
    expect([width, height]).toEqual([96, 96]);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(Buffer.from(frames[0]!).equals(Buffer.from(frames[3]!))).toBe(false);
    expect(renderVideo('motion-director', 'torch flicker').equals(gif)).toBe(true);
    const another = renderVideo('motion-director', 'torch flicker', 12, 1);
    expect(decodeGif(another).frames.length).toBe(frames.length);
    expect(another.equals(gif)).toBe(false);
  });
});

// The bytes themselves, pinned: drawn before src/mock/media.ts was split into media/ (pixel-art,
// png, gif), so a refactor of the drawing code cannot change a picture without this failing.
describe('media bytes are pinned', () => {
  const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
  it.each([
    ['sprite-artist', 'rusty sword', 'f40b4c751d7b6bad3e0a63f90f898b55e6369ebb5f299a7b5f33c085f9325c40'],
    ['tile-smith', 'mossy brick', 'cec7bca921c38f122f81c349865f79c98e370e916ceb299bea85a3cce4297d2d'],
    ['icon-forge', 'health potion', '884f826eead67f3c94bdcd7c356b5abf5c4f1da7c993ecf513bbe077b10e119b'],
  ])('renderPng(%s, %s)', (agent, prompt, expected) => {
    expect(sha256(renderPng(agent, prompt))).toBe(expected);
  });
  it.each([
    ['motion-director', 'torch', 12, '36dc4b30d1ba8750c1de701b77bdfd3a4fd6542d816add9f6d8a651f6ebdc1af'],
    ['', 'a frog knight walks', 5, '8b670c6dc140d36c0277ab440bd6690661c22a6ab91cab7622463ebe1f7ba895'],
  ])('renderVideo(%s, %s, %d frames)', (agent, prompt, frames, expected) => {
    expect(sha256(renderVideo(agent, prompt, frames))).toBe(expected);
  });
});

describe('files served by the mock', () => {
  let mock: MockHandle;
  beforeAll(async () => {
    mock = await startMock();
    await mock.config({ videoSteps: 1, videoPollAfterMs: 0 });
  });
  afterAll(async () => {
    await mock.server.close();
  });

  const generate = async (agentId: string, prompt: string, path = '/api/v1/generate', auth: 'key' | 'session' = 'key') => {
    const { status, json } = await mock.call('POST', path, { auth, body: { agentId, prompt } });
    expect(status).toBe(201);
    const response = await fetch(json.output.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    expect(json.output).toMatchObject({ contentType: 'image/png', width: 128, height: 128, bytes: bytes.length });
    return bytes;
  };

  // Until issue 27 the same (agent, prompt) drew the same bytes at every call, so two takes of an
  // asset (or a --force regeneration) looked identical offline; now each paid call draws another
  // picture, and only a replay of its Idempotency-Key gives the same bytes again.
  it('a generation points at a real PNG: several colours, different per prompt, and another picture at each paid call', async () => {
    const sword = await generate('sprite-artist', 'rusty sword');
    const decoded = decodePng(sword);
    expect(decoded).toMatchObject({ width: 128, height: 128 });
    expect(decoded.colours).toBeGreaterThanOrEqual(3);
    const again = await generate('sprite-artist', 'rusty sword', '/api/ai/generate', 'session');
    expect(changedShare(decodePng(again).rgb, decoded.rgb)).toBeGreaterThan(0.3);
    const prompts = ['golden shield', 'rusty sword!', 'slime', 'dragon egg'];
    const others = await Promise.all(prompts.map((prompt) => generate('sprite-artist', prompt)));
    for (const other of others) expect(other.equals(sword)).toBe(false);
    for (const agent of ['tile-smith', 'icon-forge']) {
      const png = await generate(agent, 'rusty sword');
      expect(png.equals(sword)).toBe(false);
      expect(decodePng(png).colours).toBeGreaterThanOrEqual(3);
    }
  });

  it('a replayed Idempotency-Key names the same file and serves the same bytes; a new key pays for another picture', async () => {
    const call = (key: string) =>
      mock.call('POST', '/api/v1/generate', { body: { agentId: 'icon-forge', prompt: 'ruby ring' }, headers: { 'idempotency-key': key } });
    const bytesOf = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
    const first = await call('ring-take-1');
    const firstBytes = await bytesOf(first.json.output.url);
    const other = await call('ring-take-2');
    const replay = await call('ring-take-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.output.url).toBe(first.json.output.url);
    expect((await bytesOf(replay.json.output.url)).equals(firstBytes)).toBe(true);
    const otherBytes = await bytesOf(other.json.output.url);
    expect(changedShare(decodePng(otherBytes).rgb, decodePng(firstBytes).rgb)).toBeGreaterThan(0.3);
    // Still the first call's picture after the other key's: the file keeps its own variation.
    expect((await bytesOf(first.json.output.url)).equals(firstBytes)).toBe(true);
  });

  it('the pictures of a mock run are reproducible: after a reset the same calls draw the same pictures again', async () => {
    const shots = async () => {
      const bytes: Buffer[] = [];
      for (let i = 0; i < 3; i++) bytes.push(await generate('tile-smith', 'mossy brick'));
      return bytes;
    };
    await mock.reset();
    await mock.config({ videoSteps: 1, videoPollAfterMs: 0 });
    const before = await shots();
    expect(new Set(before.map((bytes) => bytes.toString('hex'))).size).toBe(3);
    expect(before[0]!.equals(renderPng('tile-smith', 'mossy brick'))).toBe(true);
    await mock.reset();
    await mock.config({ videoSteps: 1, videoPollAfterMs: 0 });
    const after = await shots();
    after.forEach((bytes, i) => expect(bytes.equals(before[i]!), `call ${i + 1}`).toBe(true));
  });

  it('a finished video job points at a playable animated GIF', async () => {
    const { json: job } = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch flicker' } });
    const { json: done } = await mock.call('GET', `/api/v1/video/${job.id}`);
    expect(done.status).toBe('succeeded');
    const response = await fetch(done.output.url);
    expect(response.headers.get('content-type')).toBe('image/gif');
    const gif = Buffer.from(await response.arrayBuffer());
    const { width, height, frames, loops } = decodeGif(gif);
    expect([width, height]).toEqual([96, 96]);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(loops).toBe(true);
    expect(new Set(frames.map((frame) => Buffer.from(frame).toString('hex'))).size).toBeGreaterThanOrEqual(2);
    expect(new Set(frames[0]).size).toBeGreaterThanOrEqual(3);
  });

  it('run outputs are PNGs too', async () => {
    const { json: run } = await mock.call('POST', '/api/v1/workflows/wf_sprite_sheet/run');
    let last = run;
    for (let i = 0; i < run.totalNodes; i++) last = (await mock.call('GET', `/api/v1/runs/${run.id}`)).json;
    expect(last.outputs.length).toBeGreaterThanOrEqual(2);
    const images = await Promise.all(
      last.outputs.map(async (output: { url: string }) => Buffer.from(await (await fetch(output.url)).arrayBuffer())),
    );
    for (const png of images) expect(decodePng(png).colours).toBeGreaterThanOrEqual(3);
    expect(images[0]!.equals(images[1]!)).toBe(false);
  });
});

describe('variation counts', () => {
  it('count per (picture, prompt), keep at least the newest `limit` prompts, and forget older ones whole', () => {
    const counter = new VariationCounter(3);
    expect([counter.next('image\u0000a', 'sword'), counter.next('image\u0000a', 'sword'), counter.next('image\u0000b', 'sword')]).toEqual([
      0, 1, 0,
    ]);
    expect(counter.next('image\u0000a', 'shield')).toBe(0); // the third prompt: this generation is full
    // The full generation is still read while the next one fills.
    expect([counter.next('image\u0000a', 'sword'), counter.next('image\u0000a', 'bow'), counter.next('image\u0000a', 'axe')]).toEqual([
      2, 0, 0,
    ]);
    // Two generations on, the prompts not seen since are forgotten: their next picture is the first again.
    expect(counter.next('image\u0000a', 'sword')).toBe(3);
    expect(counter.next('image\u0000b', 'sword')).toBe(0);
    counter.clear();
    expect(counter.next('image\u0000a', 'sword')).toBe(0);
  });
});
