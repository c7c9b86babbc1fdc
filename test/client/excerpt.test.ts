// The one excerpt errors quote of what the service sent (src/client/excerpt.ts), and the error body
// read that feeds it (src/client/limits.ts): bounded, printable, its size stated, a gzip bomb
// inflated no further than the bound.
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { UnexpectedResponseError } from '../../src/index.js';
import { boundedRaw, EXCERPT_BYTES, excerpt } from '../../src/client/excerpt.js';
import { LIMITS, readErrorBody } from '../../src/client/limits.js';
import { gzipBomb } from '../support/http.js';

const MiB = 2 ** 20;
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for exactly these
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('excerpt', () => {
  it('quotes short text as it is, on one line', () => {
    expect(excerpt('Bad prompt')).toBe('Bad prompt');
    expect(excerpt('line one\n  line two\r\n')).toBe('line one line two');
  });

  it('quotes the first 1 KiB of longer text and states the whole size', () => {
    const quoted = excerpt('x'.repeat(5 * MiB));
    expect(quoted).toBe(`${'x'.repeat(EXCERPT_BYTES)}… (5,242,880 bytes; first 1,024 shown)`);
    // A body read in part: the size is what was sent, or "more than" what was read.
    expect(excerpt('y'.repeat(2000), { bytes: 10 * MiB })).toMatch(/^y{1024}… \(10,485,760 bytes; first 1,024 shown\)$/);
    expect(excerpt('z'.repeat(2000), { bytes: 65_536, atLeast: true })).toMatch(/… \(more than 65,536 bytes; first 1,024 shown\)$/);
  });

  it('drops escape sequences, control bytes and bytes that are not UTF-8', () => {
    expect(excerpt('Bad\u001b[2J\u001b]0;owned\u0007 prompt\u009b31m\u0000')).toBe('Bad prompt');
    expect(excerpt(Buffer.from([0x6f, 0x6b, 0xff, 0x21]))).toBe('ok!');
    // A character cut by the bound is left out, not shown broken.
    const cut = excerpt(`${'a'.repeat(EXCERPT_BYTES - 1)}é${'b'.repeat(100)}`);
    expect(cut.startsWith(`${'a'.repeat(EXCERPT_BYTES - 1)}…`)).toBe(true);
    expect(cut).not.toContain('\ufffd');
  });

  it('describes a binary body by its size and first bytes instead of quoting it', () => {
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256));
    expect(excerpt(binary)).toBe('[binary, 4,096 bytes: 00 01 02 03 04 05 06 07 …]');
    expect(excerpt('\u0000'.repeat(20))).toBe('[binary, 20 bytes]');
    // A few stray control bytes in text are dropped, not taken for binary.
    expect(excerpt('\u0000\u0001\u0002 text')).toBe('text');
    expect(excerpt(Buffer.from('\u001b[2J\u0007'))).toBe('[5 bytes, nothing printable]');
  });

  it('whatever it is given, the excerpt is bounded and printable', () => {
    const sizes = [0x20, 0x7f, 0x9b, 0xfffd, 0x1b, 0x0a];
    for (const code of sizes) {
      const quoted = excerpt(String.fromCharCode(code).repeat(3 * MiB));
      expect(quoted.length).toBeLessThanOrEqual(EXCERPT_BYTES + 60);
      expect(quoted).not.toMatch(CONTROL);
    }
  });

  it('boundedRaw: a small parsed value kept as it is, a larger one and any text as the excerpt', () => {
    const small = { id: 'gen_1', status: 'odd' };
    expect(boundedRaw(small)).toBe(small);
    const large = { id: 'gen_1', prompt: 'p'.repeat(10_000) };
    expect(boundedRaw(large)).toMatch(/^\{"id":"gen_1","prompt":"p+… \(10,\d{3} bytes; first 1,024 shown\)$/);
    expect(boundedRaw('text\u0000')).toBe('text');
    expect(boundedRaw(undefined)).toBeUndefined();
    expect(new UnexpectedResponseError('x', 'y'.repeat(MiB)).raw).toMatch(/\(1,048,576 bytes; first 1,024 shown\)$/);
  });
});

describe('reading an error body', () => {
  it('inflates a gzip bomb only up to the bound, then stops reading the body', async () => {
    const bomb = gzipBomb(200);
    expect(zlib.gunzipSync(bomb.subarray(0, bomb.length / 100)).length).toBe(2 * MiB); // members read as one body
    // The bomb in 16 KiB pieces, as a socket would hand it over.
    const pieces = Array.from({ length: Math.ceil(bomb.length / 16_384) }, (_, i) => bomb.subarray(i * 16_384, (i + 1) * 16_384));
    let handedOver = 0;
    const body = Readable.from(
      (function* () {
        for (const piece of pieces) {
          handedOver += piece.length;
          yield piece;
        }
      })(),
    );
    const read = await readErrorBody(body, { 'content-encoding': 'gzip' }, LIMITS.errorBodyBytes);
    expect(read.bytes.length).toBe(LIMITS.errorBodyBytes);
    expect(read.size).toEqual({ bytes: LIMITS.errorBodyBytes, atLeast: true });
    // Stopped after a few pieces of the ~200 KB bomb, not inflated to 200 MiB; its body ended
    // (by the pipeline, as the decoder closes: a turn of the event loop later).
    expect(handedOver).toBeLessThan(bomb.length / 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.destroyed).toBe(true);
  });

  it('decodes a small gzip-encoded error, and states the exact size of a plain one cut at the bound', async () => {
    const message = JSON.stringify({ error: { message: 'quota exceeded' } });
    const gzipped = await readErrorBody(Readable.from([zlib.gzipSync(message)]), { 'content-encoding': 'gzip' }, 1024);
    expect(gzipped.bytes.toString()).toBe(message);
    expect(gzipped.size).toEqual({ bytes: message.length });
    const plain = await readErrorBody(Readable.from([Buffer.alloc(5000, 0x41)]), { 'content-length': '5000' }, 1024);
    expect(plain.bytes.length).toBe(1024);
    expect(plain.size).toEqual({ bytes: 5000 });
  });
});
