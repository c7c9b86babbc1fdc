// How large V8's young generation may grow, set by the commands that plan or measure a whole
// project (build, check, report; and so an MCP server once it ran one), never by the SDK in its
// host's process nor by the mock (under load it answered with 10–20 % more CPU per request with
// it). V8 doubles the young generation (up to 2×16 MiB) whenever many objects
// survive a collection, as reading and planning thousands of assets does, and keeps it grown until
// the process ends: 32 MiB of a large re-pack's peak (docs/imaging.md "Memory"). The semi-space
// limit is read only when node starts, but the growth factor at each growth, so a factor of 1
// keeps the young generation at the size it has. Each new isolate (a worker thread's) sets the
// factor back to V8's minimum of 2 as it is made, so a worker of a process that keeps it small sets
// it again first thing (hash-worker.ts). V8 versions that hold the factor at 2 or more ignore it.
import v8 from 'node:v8';

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
