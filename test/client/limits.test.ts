// The SDK's limits at their edges (src/client/limits.ts): what is just within passes, what is past
// is refused as soon as it can be known — by a header before any byte, else at the byte that
// passes — without retries, and a download leaves no file behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, ResponseTooLargeError, UnexpectedResponseError, type AssetgenClient } from '../../src/index.js';
import { DownloadMeter } from '../../src/client/download-meter.js';
import { LIMITS } from '../../src/client/limits.js';
import { StreamMeter } from '../../src/client/sse-meter.js';
import { FAST, KEY, flood, json, startServer, type Handler, type TestServer } from '../support/http.js';

const MiB = 2 ** 20;
let dir: string;
let server: TestServer | undefined;
let client: AssetgenClient | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-limits-'));
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(handler: Handler): Promise<AssetgenClient> {
  server = await startServer(handler);
  client = createClient({ baseUrl: server.url, apiKey: KEY, sessionCookie: 'sess_limits', ...FAST });
  return client;
}

describe('JSON answers', () => {
  it('a Content-Length past 16 MiB is refused before a byte of the body is read', async () => {
    let sent: Promise<number> | undefined;
    const sdk = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1.5 * 2 ** 30 });
      sent = flood(res, 'a'.repeat(64 * 1024), 1.5 * 2 ** 30);
    });
    const error = await sdk.getRun('run_1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toMatch(/announces 1610612736 bytes, more than the 16 MiB assetgen reads/);
    expect(server!.requests).toHaveLength(1);
    expect(await sent).toBeLessThan(16 * MiB);
  });

  it('an answer just within 16 MiB is read', async () => {
    const pad = 'a'.repeat(LIMITS.jsonBytes - 100);
    const sdk = await serve((_req, res) => json(res, 200, { id: 'run_1', status: 'running', pad }));
    expect((await sdk.getRun('run_1')).id).toBe('run_1');
  });
});

describe('event streams', () => {
  const stream = async (sdk: AssetgenClient) => {
    const events: string[] = [];
    for await (const event of sdk.stream({ agentId: 'sprite-artist', prompt: 'x' })) events.push(event.type);
    return events;
  };

  it('an event past 16 MiB of short lines is refused, not retried', async () => {
    let sent: Promise<number> | undefined;
    const sdk = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sent = flood(res, `data: ${'a'.repeat(1000)}\r\n`, 1.5 * 2 ** 30);
    });
    const error = await stream(sdk).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toMatch(/an event-stream event is longer than the 16 MiB/);
    expect(server!.requests).toHaveLength(1);
    expect(await sent).toBeLessThan(64 * MiB);
  });

  it('a plain JSON answer in place of a stream is bounded like any JSON answer', async () => {
    const sdk = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      void flood(res, 'a'.repeat(64 * 1024), 1.5 * 2 ** 30);
    });
    await expect(stream(sdk)).rejects.toThrow(/larger than the 16 MiB assetgen reads/);
  });

  it('the meter counts lines across chunks, CRLF as one break, and a blank line ends an event', () => {
    const meter = new StreamMeter();
    const line = Buffer.from(`data: ${'a'.repeat(LIMITS.sseLineBytes - 6)}`);
    expect(meter.feed(line.subarray(0, 100))).toBeUndefined();
    expect(meter.feed(line.subarray(100))).toBeUndefined(); // exactly the limit
    expect(meter.feed(Buffer.from('a'))).toBe('line');
    const events = new StreamMeter();
    const half = Buffer.from(`data: ${'a'.repeat(LIMITS.sseLineBytes / 2)}\r\n`);
    // Thirty lines of half the limit each: one event of 15 MiB, then a blank line (CRLF CRLF).
    for (let i = 0; i < 30; i++) expect(events.feed(half)).toBeUndefined();
    expect(events.feed(Buffer.from('\r\n'))).toBeUndefined();
    for (let i = 0; i < 30; i++) expect(events.feed(half)).toBeUndefined();
    expect(events.feed(Buffer.concat([half, half, half]))).toBe('event');
  });
});

describe('downloads', () => {
  const file = () => path.join(dir, 'asset.png');
  const chunked =
    (maxBytes: number, headers: Record<string, string> = {}): Handler =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', ...headers });
      void flood(res, Buffer.alloc(64 * 1024, 7), maxBytes);
    };

  it('without any announced size, the cap (maxBytes) stops the body; no file, no temp file', async () => {
    const sdk = await serve(chunked(1.5 * 2 ** 30));
    const error = await sdk.download('/a.png', file(), { maxBytes: 2 * MiB }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toMatch(/larger than 2 MiB, the most assetgen downloads when the service announces no size/);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(server!.requests).toHaveLength(1);
  });

  it('a chunked body past the announced output.bytes stops there, not at its end', async () => {
    const sdk = await serve(chunked(1.5 * 2 ** 30));
    const error = await sdk.download('/a.png', file(), { expectedBytes: 1000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(/the asset is more than 1000 bytes, but the service announced 1000/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a Content-Length that contradicts output.bytes is refused before the body is read', async () => {
    const sdk = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 50 * MiB });
      void flood(res, Buffer.alloc(64 * 1024, 7), 50 * MiB);
    });
    await expect(sdk.download('/a.png', file(), { expectedBytes: 1000 })).rejects.toThrow(
      /is 52428800 bytes, but the service announced 1000/,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('the meter: the ratio is allowed up to the grace size, and bytes that decode to nothing are bounded too', () => {
    const small = new DownloadMeter({ what: 'GET x', encoded: true, contentLength: 10 });
    small.receive(10);
    expect(small.write(LIMITS.compressionGraceBytes)).toBeUndefined();
    expect(small.write(1)).toBeInstanceOf(ResponseTooLargeError);
    const empty = new DownloadMeter({ what: 'GET x', encoded: true, maxBytes: MiB });
    expect(empty.receive(MiB)).toBeUndefined();
    expect(empty.receive(1)).toBeInstanceOf(ResponseTooLargeError);
  });
});
