// What a download may bring, checked as the bytes flow (so a flood stops at its limit rather than
// after filling the disk): at most what was announced — the record's `output.bytes`, else the
// Content-Length — else the cap of limits.ts; and, for an encoded body, a bounded compression ratio.
import { ConnectionError, ResponseTooLargeError, UnexpectedResponseError } from './errors.js';
import { LIMITS, formatBytes } from './limits.js';

export interface DownloadBounds {
  /** `GET <url>`, for messages. */
  what: string;
  /** The size the service announced in the asset's record (decoded bytes). */
  expectedBytes?: number;
  /** The Content-Length: bytes on the wire (encoded, when the body is). */
  contentLength?: number;
  encoded: boolean;
  /** The cap when nothing announced a size. */
  maxBytes?: number;
}

export class DownloadMeter {
  /** Bytes as they arrived. */
  received = 0;
  /** Bytes as they are saved (decoded). */
  written = 0;
  readonly #bounds: DownloadBounds;
  readonly #maxBytes: number;

  constructor(bounds: DownloadBounds) {
    this.#bounds = bounds;
    this.#maxBytes = bounds.maxBytes ?? LIMITS.downloadBytes;
  }

  /** Before reading: an unencoded body whose length already contradicts the record. */
  check(): void {
    const { encoded, contentLength, expectedBytes } = this.#bounds;
    if (!encoded && contentLength !== undefined && expectedBytes !== undefined && contentLength !== expectedBytes) {
      throw this.#mismatch(contentLength);
    }
  }

  /** Counts bytes off the wire; an error once they pass what may arrive. */
  receive(bytes: number): Error | undefined {
    this.received += bytes;
    const { contentLength, expectedBytes } = this.#bounds;
    if (contentLength !== undefined) return this.received > contentLength ? this.#excess(contentLength) : undefined;
    // Bounded on the wire too: an encoded stream can bring bytes that decode to nothing.
    return this.received > Math.max(this.#maxBytes, expectedBytes ?? 0) ? this.#tooLarge() : undefined;
  }

  /** Counts bytes as saved; an error once they pass the announced size, the cap or the ratio. */
  write(bytes: number): Error | undefined {
    this.written += bytes;
    const error = this.#decoded(this.written);
    if (error) return error;
    if (this.written > LIMITS.compressionGraceBytes && this.written > LIMITS.compressionRatio * this.received) {
      return new ResponseTooLargeError(
        `${this.#bounds.what}: the asset decodes to more than ${LIMITS.compressionRatio} times its compressed size (${this.received} bytes became ${this.written} and more); it was not saved.`,
        LIMITS.compressionRatio,
      );
    }
    return undefined;
  }

  /** After the body ended: short of its Content-Length (worth a retry), or another size than announced. */
  finish(): void {
    const { contentLength, expectedBytes, what } = this.#bounds;
    if (contentLength !== undefined && this.received !== contentLength) {
      throw new ConnectionError(`${what}: got ${this.received} of ${contentLength} bytes.`);
    }
    if (expectedBytes !== undefined && this.written !== expectedBytes) throw this.#mismatch(this.written);
  }

  #decoded(bytes: number): Error | undefined {
    const { expectedBytes, encoded, contentLength } = this.#bounds;
    if (expectedBytes !== undefined) return bytes > expectedBytes ? this.#mismatch(`more than ${expectedBytes}`) : undefined;
    // A Content-Length announces the size of an unencoded body only.
    const announced = !encoded && contentLength !== undefined;
    return !announced && bytes > this.#maxBytes ? this.#tooLarge() : undefined;
  }

  #mismatch(size: number | string): UnexpectedResponseError {
    return new UnexpectedResponseError(
      `${this.#bounds.what}: the asset is ${size} bytes, but the service announced ${this.#bounds.expectedBytes}; it was not saved.`,
      undefined,
    );
  }

  #excess(contentLength: number): UnexpectedResponseError {
    return new UnexpectedResponseError(
      `${this.#bounds.what}: the body is longer than its Content-Length of ${contentLength} bytes; it was not saved.`,
      undefined,
    );
  }

  #tooLarge(): ResponseTooLargeError {
    return new ResponseTooLargeError(
      `${this.#bounds.what}: the asset is larger than ${formatBytes(this.#maxBytes)}, the most assetgen downloads when the service announces no size; it was not saved.`,
      this.#maxBytes,
    );
  }
}
