// Memory pacing for long downloads, for the CLI's own process only (never the SDK's: a library
// must not touch its host's V8 flags). Every socket read brings a fresh 64 KiB buffer, and V8
// frees the dead ones only when its external memory grows by ~64 MiB or its young generation
// fills — which small JS objects never do here — so a large download peaked ~40 MiB above the
// process's start. A young-generation collection every 4 MiB frees them as they go (measured in
// bench/download.mjs).
import v8 from 'node:v8';
import vm from 'node:vm';

const EVERY_BYTES = 4 * 2 ** 20;

type Collect = (options: { type: 'minor' | 'major' }) => void;
let collect: Collect | null | undefined;

/** V8's `gc`, obtained in a separate context so the process's own global stays untouched. */
function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as Collect;
    v8.setFlagsFromString('--no-expose-gc');
  } catch {
    collect = null;
  }
  return collect;
}

/** A progress hook that asks for a young-generation collection every 4 MiB received. */
export function paceMemory(): (bytes: number) => void {
  let next = EVERY_BYTES;
  return (bytes) => {
    if (bytes < next) return;
    next = bytes + EVERY_BYTES;
    collector()?.({ type: 'minor' });
  };
}
