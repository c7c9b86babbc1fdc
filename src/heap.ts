// V8's heap, in assetgen's own processes only (the CLI, its MCP server; never the SDK's host: a
// library must not touch its host's V8 flags): its `gc`, for the paced collections of downloads
// (cli/memory.ts) and of decoded pixels (imaging/collect.ts); and how large its young generation
// may grow.
//
// V8 doubles the young generation (up to 2×16 MiB) whenever many objects survive a collection, as
// reading and planning thousands of assets does, and keeps it grown until the process ends: 32 MiB
// of a large re-pack's peak (docs/imaging.md "Memory"). The semi-space limit is read only when node
// starts, but the growth factor at each growth, so a factor of 1 keeps the young generation at the
// size it has. The commands that plan or measure a whole project set it (build, check, report; and
// so an MCP server once it ran one); the mock does not (under load it answered with 10–20 % more
// CPU per request with it). Each new isolate (a worker thread's) sets the factor back to V8's
// minimum of 2 as it is made, so a worker of a process that keeps it small sets it again first
// thing (pipeline/hash-worker.ts). V8 versions that hold the factor at 2 or more ignore it.
import v8 from 'node:v8';
import vm from 'node:vm';

/** V8's `gc` (full by default; `{ type: 'minor' }` for the young generation only). */
export type Collect = (options?: { type: 'minor' | 'major' }) => void;

let collect: Collect | null | undefined;

/**
 * V8's `gc`, or null where it cannot be had: node's own when started with --expose-gc, else
 * exposed at run time (the documented V8 flag) and taken from a separate context, the flag then
 * turned off again so that no later context gets a global `gc`.
 */
export function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    const exposed = (globalThis as { gc?: Collect }).gc;
    if (exposed) return (collect = exposed);
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as Collect;
    v8.setFlagsFromString('--no-expose-gc');
  } catch {
    collect = null;
  }
  return collect;
}

const FLAG = '--semi-space-growth-factor=1';

let kept = false;

/** From now on, the young generation stays the size it is (the project commands call this first). */
export function keepYoungGenerationSmall(): void {
  kept = true;
  v8.setFlagsFromString(FLAG);
}

/** Whether this process keeps it small (a worker it starts is told to set the factor again). */
export function youngGenerationKeptSmall(): boolean {
  return kept;
}
