// How much the client takes from a service before it stops reading: every answer is bounded, so a
// broken or hostile service costs a clear error, never the machine's memory or disk. docs/cli.md
// ("Limits") documents the same numbers.
import type { Readable } from 'node:stream';
import { ResponseTooLargeError } from './errors.js';

const MiB = 2 ** 20;

export const LIMITS = {
  /** A JSON answer (a record, a list), and a plain JSON answer where a stream was expected. */
  jsonBytes: 16 * MiB,
  /** An error body is read up to this much; the rest is dropped (a 20 MB error is not a message). */
  errorBodyBytes: 64 * 1024,
  /** One line of an event stream. */
  sseLineBytes: 1 * MiB,
  /** One event of an event stream (its lines together): it may carry a whole generation record. */
  sseEventBytes: 16 * MiB,
  /** A download whose size nobody announced (no `output.bytes`, no Content-Length, or encoded). */
  downloadBytes: 1024 * MiB,
  /** Decoded bytes per received byte of a compressed download… */
  compressionRatio: 100,
  /** …once past this much decoded (a tiny file may compress far better, harmlessly). */
  compressionGraceBytes: 1 * MiB,
} as const;

/** "16 MiB", "64 KiB", "1234 bytes": a limit as a person reads it. */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * The whole body as text, refused beyond `limit` bytes: by its Content-Length before reading a
 * byte, else as soon as the bytes read pass it (the rest is never read). `what` names the call.
 */
export async function readLimited(body: Readable, limit: number, what: string, contentLength?: number): Promise<string> {
  if (contentLength !== undefined && contentLength > limit) {
    body.destroy();
    throw new ResponseTooLargeError(
      `${what}: the answer announces ${contentLength} bytes, more than the ${formatBytes(limit)} assetgen reads; it was not read.`,
      limit,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) {
      body.destroy();
      throw new ResponseTooLargeError(
        `${what}: the answer is larger than the ${formatBytes(limit)} assetgen reads; reading stopped there.`,
        limit,
      );
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
