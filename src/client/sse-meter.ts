// Bounds an event stream as its bytes arrive, before the parser buffers them: the parser keeps an
// unfinished line, and an event's data lines, in memory until they end — a line that never ends
// would take all of it. Counted on raw bytes: CR and LF never occur inside a UTF-8 sequence.
import { LIMITS } from './limits.js';

const CR = 0x0d;
const LF = 0x0a;

export class StreamMeter {
  #line = 0;
  #event = 0;
  /** The last break was a CR: an LF right after it belongs to the same break. */
  #afterCr = false;

  /** Counts a chunk; which limit it passed, if any. */
  feed(chunk: Uint8Array): 'line' | 'event' | undefined {
    let nextCr = -1;
    let nextLf = -1;
    for (let start = 0; start < chunk.length; ) {
      // Each index is searched again only once passed: one scan of the chunk per byte value.
      if (nextCr !== chunk.length && nextCr < start) nextCr = indexOr(chunk, CR, start);
      if (nextLf !== chunk.length && nextLf < start) nextLf = indexOr(chunk, LF, start);
      const end = Math.min(nextCr, nextLf);
      const length = end - start;
      if (length > 0) {
        this.#line += length;
        this.#event += length;
        this.#afterCr = false;
        if (this.#line > LIMITS.sseLineBytes) return 'line';
        if (this.#event > LIMITS.sseEventBytes) return 'event';
      }
      if (end === chunk.length) break;
      if (chunk[end] === LF && this.#afterCr) this.#afterCr = false;
      else {
        if (this.#line === 0) this.#event = 0; // a blank line ends the event
        this.#line = 0;
        this.#afterCr = chunk[end] === CR;
      }
      start = end + 1;
    }
    return undefined;
  }
}

function indexOr(chunk: Uint8Array, byte: number, from: number): number {
  const index = chunk.indexOf(byte, from);
  return index === -1 ? chunk.length : index;
}
