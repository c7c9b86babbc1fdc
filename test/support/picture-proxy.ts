// The real mock, but every image it generates is a picture the test chose: a loopback proxy that
// forwards every request to the mock (which charges, records keys and keeps its ledger as ever) and
// answers for the generated PNGs with the test's own bytes, the generation records saying their
// size. For pixel tests of a build (a strip to slice, a key colour to remove) where the mock's
// 128×128 pixel art is not the picture needed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { FILES_PATH } from '../../src/mock/constants.js';

export interface PictureProxy {
  /** What the CLI is given as ASSETGEN_BASE_URL. */
  url: string;
  /** The picture served now (change it between builds). */
  picture: Buffer;
  /** How many times a generated image was fetched through the proxy. */
  served: number;
  close(): Promise<void>;
}

export async function startPictureProxy(mockUrl: string, picture: Buffer): Promise<PictureProxy> {
  const upstream = new URL(mockUrl);
  const proxy = { picture, served: 0 } as PictureProxy;
  const { width, height } = await sharp(picture).metadata();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '').startsWith(`${FILES_PATH}/`) && (req.url ?? '').endsWith('.png')) {
      proxy.served++;
      return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': proxy.picture.length }).end(proxy.picture);
    }
    // The Host stays the proxy's, so the mock's file URLs point here; no compression to rewrite through.
    const { 'accept-encoding': _encoding, ...headers } = req.headers;
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        let body: Buffer = Buffer.concat(chunks);
        if (/json/.test(answer.headers['content-type'] ?? '')) body = withPictureSize(body, proxy.picture.length, width, height);
        const { 'content-length': _length, 'transfer-encoding': _transfer, ...rest } = answer.headers;
        res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': body.length }).end(body);
      });
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** A generation record (or a list of them) as the mock sent it, its output's size made the picture's. */
function withPictureSize(body: Buffer, bytes: number, width: number, height: number): Buffer {
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  const records = Array.isArray((data as { data?: unknown }).data) ? (data as { data: unknown[] }).data : [data];
  let changed = false;
  for (const record of records as { object?: string; output?: Record<string, unknown> }[]) {
    if (record?.object !== 'generation' || !record.output) continue;
    Object.assign(record.output, { bytes, width, height });
    changed = true;
  }
  return changed ? Buffer.from(JSON.stringify(data)) : body;
}
