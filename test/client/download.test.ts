import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError, ConnectionError, createClient, NotFoundError, OutputFileError, type AssetgenClient } from '../../src/index.js';
import { FAST, KEY, startServer, type TestServer } from '../support/http.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200_000, 7)]);

let dir: string;
const servers: TestServer[] = [];
let client: AssetgenClient | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-dl-'));
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const server of servers.splice(0)) await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function sendPng(res: import('node:http').ServerResponse) {
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
  res.end(PNG);
}

const leftovers = () => fs.readdirSync(dir).filter((name) => name.includes('.part-'));

describe('download', () => {
  it('a streamed body whose first chunks are tiny still gives the first 16 bytes as its head', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }); // no Content-Length: the streaming path
      res.write(PNG.subarray(0, 3));
      setTimeout(() => {
        res.write(PNG.subarray(3, 9));
        setTimeout(() => res.end(PNG.subarray(9)), 20);
      }, 20);
    });
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const result = await client.download('/files/a.png', path.join(dir, 'slow.png'));
    expect(result.head).toEqual(PNG.subarray(0, 16));
  });

  it("inPlace: writes the caller's fresh name itself (no .part- file), and never over a file that is there", async () => {
    const server = await serve((_req, res) => sendPng(res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const file = path.join(dir, 'fresh.tmp');
    const result = await client.download('/files/a.png', file, { inPlace: true });
    expect(result.head).toEqual(PNG.subarray(0, 16));
    expect(fs.readFileSync(file).equals(PNG)).toBe(true);
    expect(leftovers()).toEqual([]);
    const taken = path.join(dir, 'taken.tmp');
    fs.writeFileSync(taken, 'mine');
    await expect(client.download('/files/a.png', taken, { inPlace: true })).rejects.toThrow();
    expect(fs.readFileSync(taken, 'utf8')).toBe('mine');
  });

  it('streams to the file, resolving relative URLs against the base, without credentials', async () => {
    const server = await serve((_req, res) => sendPng(res));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const file = path.join(dir, 'a.png');
    const progress: number[] = [];
    const result = await client.download('/files/a.png', file, {
      onProgress: (bytes, total) => (progress.push(bytes), expect(total).toBe(PNG.length)),
    });
    expect(result).toEqual({ path: file, bytes: PNG.length, contentType: 'image/png', head: PNG.subarray(0, 16) });
    expect(fs.readFileSync(file).equals(PNG)).toBe(true);
    expect(progress.at(-1)).toBe(PNG.length);
    expect(server.requests[0]!.url).toBe('/files/a.png');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(leftovers()).toEqual([]);
  });

  it('creates the destination folder', async () => {
    const server = await serve((_req, res) => sendPng(res));
    client = createClient({ baseUrl: server.url });
    const file = path.join(dir, 'a', 'b', 'c.png');
    await client.download('/c.png', file);
    expect(fs.readFileSync(file).equals(PNG)).toBe(true);
    await client.close();
    await client.close(); // closing twice is harmless
  });

  it('refuses to overwrite without force, overwrites with it', async () => {
    const server = await serve((_req, res) => sendPng(res));
    client = createClient({ baseUrl: server.url });
    const file = path.join(dir, 'a.png');
    fs.writeFileSync(file, 'mine');
    await expect(client.download('/f', file)).rejects.toBeInstanceOf(OutputFileError);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine');
    expect(server.requests).toHaveLength(0); // refused before spending anything
    await client.download('/f', file, { force: true });
    expect(fs.readFileSync(file).length).toBe(PNG.length);
  });

  it('sends credentials to the service origin only when it asks', async () => {
    const server = await serve((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end('{"error":{"message":"auth"}}');
      }
      sendPng(res);
    });
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    await client.download(`${server.url}/private.png`, path.join(dir, 'p.png'));
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([undefined, `Bearer ${KEY}`]);
  });

  it('never sends credentials to another origin, even after a redirect from the service', async () => {
    const cdn = await serve((req, res) => {
      if (req.headers.authorization || req.headers.cookie) {
        res.writeHead(400);
        return res.end('leaked');
      }
      sendPng(res);
    });
    const service = await serve((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401);
        return res.end();
      }
      res.writeHead(302, { location: `${cdn.url}/signed/a.png` });
      res.end();
    });
    client = createClient({ baseUrl: service.url, apiKey: KEY, sessionCookie: 'tok' });
    const result = await client.download('/files/a.png', path.join(dir, 'a.png'));
    expect(result.bytes).toBe(PNG.length);
    expect(cdn.requests[0]!.headers.authorization).toBeUndefined();
    expect(cdn.requests[0]!.headers.cookie).toBeUndefined();
    // And a URL on another origin from the start: no credentials even when it answers 401.
    const other = await serve((_req, res) => {
      res.writeHead(401);
      res.end();
    });
    await expect(client.download(`${other.url}/x.png`, path.join(dir, 'x.png'))).rejects.toMatchObject({ status: 401 });
    expect(other.requests.map((r) => r.headers.authorization)).toEqual([undefined]);
  });

  it('retries a truncated body and leaves no temp file behind', async () => {
    const server = await serve((_req, res, _s, i) => {
      if (i === 0) {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
        res.write(PNG.subarray(0, 1000));
        return void setImmediate(() => res.socket?.destroy());
      }
      sendPng(res);
    });
    client = createClient({ baseUrl: server.url, ...FAST });
    const file = path.join(dir, 'a.png');
    await client.download('/a.png', file);
    expect(fs.readFileSync(file).equals(PNG)).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(leftovers()).toEqual([]);
  });

  it('hashes what it saves when asked (sha256: true): the last attempt only, after decoding', async () => {
    const sha = createHash('sha256').update(PNG).digest('hex');
    const server = await serve((_req, res, _s, i) => {
      if (i === 0) {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
        res.write(PNG.subarray(0, 1000));
        return void setImmediate(() => res.socket?.destroy());
      }
      if (i === 1) return sendPng(res);
      const gzipped = gzipSync(PNG);
      res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip', 'content-length': gzipped.length });
      res.end(gzipped);
    });
    client = createClient({ baseUrl: server.url, ...FAST });
    const retried = await client.download('/a.png', path.join(dir, 'a.png'), { sha256: true });
    expect(retried).toMatchObject({ bytes: PNG.length, sha256: sha });
    const decoded = await client.download('/b.png', path.join(dir, 'b.png'), { sha256: true });
    expect(decoded).toMatchObject({ bytes: PNG.length, sha256: sha });
    expect(server.requests).toHaveLength(3);
  });

  it('saves small bodies whole and large or unsized ones streamed, the same bytes and hash either way', async () => {
    const large = Buffer.concat([PNG, Buffer.alloc(3 << 20, 9)]);
    const server = await serve((req, res) => {
      if (req.url === '/large.png') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': large.length });
        return void res.end(large);
      }
      // No Content-Length: chunked, so the size is known only at the end.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG.subarray(0, 1000));
      setImmediate(() => res.end(PNG.subarray(1000)));
    });
    client = createClient({ baseUrl: server.url });
    for (const [name, body] of [
      ['large.png', large],
      ['chunked.png', PNG],
    ] as const) {
      const file = path.join(dir, name);
      const result = await client.download(`/${name}`, file, { sha256: true });
      expect(result).toMatchObject({ bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
      expect(fs.readFileSync(file).equals(body)).toBe(true);
    }
    expect(leftovers()).toEqual([]);
  });

  it('fails cleanly when the body keeps breaking', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      res.write(PNG.subarray(0, 1000));
      setImmediate(() => res.socket?.destroy());
    });
    client = createClient({ baseUrl: server.url, maxRetries: 1, ...FAST });
    const file = path.join(dir, 'a.png');
    await expect(client.download('/a.png', file)).rejects.toBeInstanceOf(ConnectionError);
    expect(fs.existsSync(file)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it('maps a 404 and writes nothing', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"not_found","message":"No such file"}}');
    });
    client = createClient({ baseUrl: server.url });
    await expect(client.download('/nope.png', path.join(dir, 'n.png'))).rejects.toBeInstanceOf(NotFoundError);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('writes to a stream without ending it', async () => {
    const server = await serve((_req, res) => sendPng(res));
    client = createClient({ baseUrl: server.url });
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    const result = await client.download('/a.png', sink);
    expect(result).toEqual({ bytes: PNG.length, contentType: 'image/png', head: PNG.subarray(0, 16) });
    expect(sink.writableEnded).toBe(false);
    expect(Buffer.concat(chunks).equals(PNG)).toBe(true);
  });

  it('aborts mid-body, removing the temp file', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      res.write(PNG.subarray(0, 1000)); // then stall
    });
    client = createClient({ baseUrl: server.url });
    const controller = new AbortController();
    const file = path.join(dir, 'a.png');
    const pending = client.download('/a.png', file, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
