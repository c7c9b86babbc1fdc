// The Content-Encodings the client decodes. It never asks for one, but a proxy or a service may
// send gzip anyway: downloads and error bodies are decoded as they are read, within their limits.
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';

/** The decoder of `encoding`: undefined when there is nothing to decode, null for one the client cannot. */
export function contentDecoder(encoding: string | undefined): (() => Transform) | undefined | null {
  const name = (encoding ?? '').trim().toLowerCase();
  if (name === '' || name === 'identity') return undefined;
  if (name === 'gzip' || name === 'x-gzip') return () => zlib.createGunzip();
  if (name === 'deflate') return () => zlib.createInflate();
  if (name === 'br') return () => zlib.createBrotliDecompress();
  return null;
}
