// Memory pacing for long downloads, for the CLI's own process only (never the SDK's: a library
// must not touch its host's V8 flags or allocator). Every socket read brings a fresh 64 KiB buffer
// (and node's HTTP parser copies it into another), and V8 frees the dead ones only when its
// external memory grows by ~64 MiB or its young generation fills — which small JS objects never do
// here — so a large download peaked ~40 MiB above the process's start. A young-generation
// collection every 2 MiB frees them as they go (measured in bench/download.mjs).
import { collector } from '../heap.js';

const EVERY_BYTES = 2 * 2 ** 20;

let keeping = false;

/**
 * glibc gives freed memory back to the kernel as soon as 128 KiB lie free at the top of its heap,
 * so every paced collection returned the buffers it freed, and the next socket reads faulted fresh
 * pages in again: ~14,000 page faults, a tenth of a 200 MiB download's CPU. glibc raises that
 * threshold to twice the size of a freed mmap-sized block (up to 32 MiB); one 16 MiB buffer,
 * never touched (so never resident) and freed by the first paced collection, sets it to 32 MiB.
 * Elsewhere (musl, macOS) it is an untouched allocation and nothing more.
 */
export function keepFreedMemory(): void {
  if (keeping) return;
  keeping = true;
  Buffer.allocUnsafeSlow(16 * 2 ** 20);
}

/** A progress hook that asks for a young-generation collection every 2 MiB received. */
export function collectAsItGoes(): (bytes: number) => void {
  let next = EVERY_BYTES;
  return (bytes) => {
    if (bytes < next) return;
    next = bytes + EVERY_BYTES;
    collector()?.({ type: 'minor' });
  };
}

/** The progress hook the CLI gives every download: both of the above. */
export function paceMemory(): (bytes: number) => void {
  keepFreedMemory();
  return collectAsItGoes();
}
