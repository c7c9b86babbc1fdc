// How much the client takes from a service before it stops reading: every answer is bounded, so a
// broken or hostile service costs a clear error, never the machine's memory or disk. docs/cli.md
// ("Limits") documents the same numbers.
import { pipeline as streamPipeline, type Readable } from 'node:stream';
import { contentDecoder } from './encoding.js';
import { ResponseTooLargeError } from './errors.js';
import type { SentSize } from './excerpt.js';
import { header, num, type HeaderMap } from './values.js';

const MiB = 2 ** 20;

export const LIMITS = {
  /**
   * A request body assetgen sends (a prompt with its options): refused before sending, so a prompt
   * no service takes fails as the caller's mistake, not as a dropped connection that may have paid.
   */
  requestBytes: 1 * MiB,
  /** A JSON answer (a record, a list), and a plain JSON answer where a stream was expected. */
  jsonBytes: 16 * MiB,
  /** An error body is read up to this much (decoded); the rest is dropped (a 20 MB error is not a message). */
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

function tooLarge(what: string, limit: number): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `${what}: the answer is larger than the ${formatBytes(limit)} assetgen reads; reading stopped there.`,
    limit,
  );
}

/** What a stream ended early without an error of its own fails with (as `for await` would). */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/**
 * `text` once the body has ended (or its error if it closes first). Not sooner: node puts a
 * keep-alive socket back in its pool as the answer ends, and a next call made before that would
 * open a connection of its own.
 */
function onceEnded(body: Readable, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onEnd = (): void => {
      body.off('close', onClose);
      resolve(text);
    };
    const onClose = (): void => {
      body.off('end', onEnd);
      reject(body.errored ?? prematureClose());
    };
    body.once('end', onEnd);
    body.once('close', onClose);
  });
}

/**
 * The whole body as text, refused beyond `limit` bytes: by its Content-Length before reading a
 * byte, else as soon as the bytes read pass it (the rest is never read). `what` names the call
 * (a function: only worked out when an error needs it). Read through events rather than `for
 * await`: an async iterator per answer cost more than the rest of reading a small JSON answer.
 */
export function readLimited(body: Readable, limit: number, what: string | (() => string), contentLength?: number): Promise<string> {
  const name = (): string => (typeof what === 'string' ? what : what());
  if (contentLength !== undefined && contentLength > limit) {
    body.destroy();
    return Promise.reject(
      new ResponseTooLargeError(
        `${name()}: the answer announces ${contentLength} bytes, more than the ${formatBytes(limit)} assetgen reads; it was not read.`,
        limit,
      ),
    );
  }
  if (body.errored) return Promise.reject(body.errored);
  if (body.destroyed && !body.readableEnded) return Promise.reject(prematureClose());
  // A small answer is usually whole in memory by now (node's parser read it with the headers):
  // taken at once, without the stream's data events.
  if ((body as { complete?: boolean }).complete === true && !body.readableFlowing && body.readableLength > 0) {
    const whole = body.read() as Buffer | string | null;
    if (whole !== null && body.readableLength === 0) {
      const bytes = typeof whole === 'string' ? Buffer.from(whole) : whole;
      if (bytes.length <= limit) return onceEnded(body, bytes.toString('utf8'));
      body.destroy();
      return Promise.reject(tooLarge(name(), limit));
    }
    if (whole !== null) body.unshift(whole);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: Error | undefined): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      // Done with the body either way (a finished one keeps its socket for the next call).
      body.destroy();
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > limit) {
        settle(tooLarge(name(), limit));
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = (): void => settle(undefined);
    const onError = (error: Error): void => settle(error);
    const onClose = (): void => {
      if (!body.readableEnded) settle(body.errored ?? prematureClose());
    };
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
    body.once('close', onClose);
  });
}

/** The first bytes of a body, and how much was sent. */
export interface BodyHead {
  bytes: Buffer;
  size: SentSize;
}

/**
 * The first `limit` bytes of an error body, decoded when it came with a Content-Encoding (inflating
 * stops at the limit: a gzip bomb costs `limit` bytes, not what it inflates to), then stops reading
 * and drops the rest. The size is exact when the body ended, or was announced and not encoded.
 */
export async function readErrorBody(body: Readable, headers: HeaderMap, limit: number): Promise<BodyHead> {
  const decoder = contentDecoder(header(headers, 'content-encoding'));
  // A pipeline ends the body too when the decoder is destroyed; an encoding the client cannot
  // decode is read as it is (the excerpt calls it binary).
  const source = decoder ? streamPipeline(body, decoder(), () => {}) : body;
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    const room = limit - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = limit;
      cut = true;
      break; // ends the iteration, which destroys the source (and, through the pipeline, the body)
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  const announced = decoder === undefined ? num(header(headers, 'content-length')) : undefined;
  const sent: SentSize = !cut
    ? { bytes: size }
    : announced !== undefined && announced > size
      ? { bytes: announced }
      : { bytes: size, atLeast: true };
  return { bytes: Buffer.concat(chunks, size), size: sent };
}
