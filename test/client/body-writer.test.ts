// The writer of large downloads (src/client/body-writer.ts) on real files: batches, tiny pieces,
// a check that fails, a failing write, a body that closes early, an abort; and, through a real
// server, an abort of a large body (the 1 MiB one streams through the writer).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeBody } from '../../src/client/body-writer.js';
import { AbortedError, createClient } from '../../src/index.js';
import { startServer, type TestServer } from '../support/http.js';

let dir: string;
let fd: number | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-writer-'));
});
afterEach(() => {
  if (fd !== undefined) fs.closeSync(fd);
  fd = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(): { file: string; fd: number } {
  const file = path.join(dir, 'out.bin');
  fd = fs.openSync(file, 'wx');
  return { file, fd };
}

/** A body of `pieces` that pushes as fast as it is read. */
function bodyOf(pieces: Buffer[]): Readable {
  return Readable.from(pieces, { objectMode: false });
}

describe('writeBody', () => {
  it('writes every chunk in order, large and tiny, and checks each one once', async () => {
    const { file, fd } = open();
    // 6 MiB in odd sizes, then 3,000 one-byte pieces (more than one write may take at once).
    const pieces = [
      ...Array.from({ length: 90 }, (_, i) => randomBytes(40_000 + i * 1_000)),
      ...Array.from({ length: 3_000 }, () => randomBytes(1)),
    ];
    const seen: number[] = [];
    await writeBody(bodyOf(pieces), fd, (chunk) => void seen.push(chunk.length));
    expect(fs.readFileSync(file).equals(Buffer.concat(pieces))).toBe(true);
    expect(seen.reduce((sum, n) => sum + n, 0)).toBe(Buffer.concat(pieces).length);
  });

  it('stops at the first chunk its check refuses: that error, the body destroyed, nothing after it written', async () => {
    const { file, fd } = open();
    const body = new PassThrough();
    const refusal = new Error('past the announced size');
    let total = 0;
    const written = writeBody(body, fd, (chunk) => ((total += chunk.length) > 3 * 2 ** 20 ? refusal : undefined));
    for (let i = 0; i < 8 && !body.destroyed; i++) body.write(Buffer.alloc(2 ** 20, i));
    await expect(written).rejects.toBe(refusal);
    expect(body.destroyed).toBe(true);
    expect(fs.statSync(file).size).toBeLessThanOrEqual(3 * 2 ** 20);
  });

  it('a write that fails rejects with the file error (syscall write) and ends the body', async () => {
    const file = path.join(dir, 'read-only.bin');
    fs.writeFileSync(file, '');
    fd = fs.openSync(file, 'r');
    const body = bodyOf([Buffer.alloc(3 * 2 ** 20, 1)]);
    const error = await writeBody(body, fd, () => undefined).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ syscall: 'write' });
    expect(body.destroyed).toBe(true);
  });

  it('a body that closes before its end is an error, not a short file taken as whole', async () => {
    const { fd } = open();
    const body = new PassThrough();
    const written = writeBody(body, fd, () => undefined);
    body.write(Buffer.alloc(1000));
    setImmediate(() => body.destroy());
    await expect(written).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('an abort ends it at once (and an aborted signal before the start too)', async () => {
    const { fd } = open();
    const body = new PassThrough();
    const controller = new AbortController();
    const written = writeBody(body, fd, () => undefined, controller.signal);
    body.write(Buffer.alloc(1000));
    controller.abort();
    await expect(written).rejects.toMatchObject({ name: 'AbortError' });
    expect(body.destroyed).toBe(true);
    const again = new PassThrough();
    await expect(writeBody(again, fd, () => undefined, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(again.destroyed).toBe(true);
  });
});

describe('download of a large body', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('aborted mid-body: AbortedError, no file and no temp file left', async () => {
    const size = 8 * 2 ** 20;
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': size });
      res.write(Buffer.alloc(2 * 2 ** 20, 7)); // then stall
    });
    const client = createClient({ baseUrl: server.url });
    const controller = new AbortController();
    const file = path.join(dir, 'big.png');
    const pending = client.download('/big.png', file, {
      signal: controller.signal,
      onProgress: (bytes) => bytes >= 2 ** 20 && controller.abort(),
    });
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    await client.close();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
