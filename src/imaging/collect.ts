// Dead pixels freed on time. A frame sharp decodes is a Buffer whose memory V8 frees only when it
// collects the Buffer object, and it counts such memory late: a sheet that decodes thousands of
// frames one after another had 100 MiB and more of dead pixels waiting (test/slow/sheet-memory.test.ts),
// and a post step list at its limit 23 MiB of earlier steps' images while the quantiser ran. So
// after every COLLECT_AFTER bytes decoded (a step list: see post.ts), full collections are asked for,
// with V8's `gc` as src/heap.ts gets it; where that fails, nothing is done.
import { collector } from '../heap.js';

const COLLECT_AFTER = 32 * 1024 * 1024;
/** At the end of a piece of work, what it decoded since the last collection is collected from this size on. */
const SETTLE_AFTER = 4 * 1024 * 1024;

let decoded = 0;

/** Counts `bytes` of pixels decoded (and soon dead); past the threshold, collects. */
export function decodedPixels(bytes: number): void {
  decoded += bytes;
  if (decoded < COLLECT_AFTER) return;
  collectDeadPixels();
}

/**
 * A piece of work (an atlas page) is done and its pixels are dead: collected now if there are
 * enough of them, before whatever comes next allocates beside them. Measured on a 5,008-asset
 * re-pack: the last page's pixels were still held when the lock was written (peaks 146–154 MiB
 * without this, 137–138 with it).
 */
export function donePixels(): void {
  if (decoded >= SETTLE_AFTER) collectDeadPixels();
}

/** Collects now: the pixels no longer referenced are freed. */
export function collectDeadPixels(): void {
  decoded = 0;
  const collect = collector();
  if (!collect) return;
  // Twice: sharp's Buffers are external memory with a finalizer, which the first collection only
  // queues (their pixels stay allocated); the second frees them. Measured: 20 MiB of dead 1,024²
  // images still held after one collection, none after two.
  collect();
  collect();
}
