// Takes: several paid calls for one prompt, so a person (or an agent) can choose (issue 27). Each
// take is its own paid call with its own Idempotency-Key, all derived from one key, so the same
// command run again replays the takes already paid for instead of paying twice. What the takes of
// a single command share lives here; the build's takes are the pipeline's (src/pipeline).
import path from 'node:path';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency.js';
import { confirmCharge } from './prompt.js';
import { namesFolder } from './save.js';

export { MAX_TAKES } from '../api/takes.cjs';

/** Take k's key: take 1 has the key itself (the key of a single call), take k ≥ 2 `<key>-take-<k>`. */
export function takeKey(key: string, take: number): string {
  return take === 1 ? key : `${key}-take-${take}`;
}

/** A key the takes can all derive from: short enough for `-take-16` to fit the header's 255 characters. */
export function checkTakesKey(ctx: CommandContext, key: string, takes: number): void {
  const room = MAX_IDEMPOTENCY_KEY_LENGTH - takeKey('', takes).length;
  if (takes > 1 && key.length > room)
    throw new UsageError(
      `${ctx.frontEnd.option('idempotencyKey')} is ${key.length} characters; with ${takes} takes it may have ${room} (take k's key is <key>-take-<k>).`,
    );
}

/**
 * Where take k goes, given `-o`: a file path `sword.png` becomes sword-1.png … sword-N.png (the
 * name's extension kept, `sword` becomes sword-1 …); a folder, or no `-o`, keeps the service's
 * names, as a single take does.
 */
export function takeOutput(ctx: CommandContext, output: string | undefined, take: number): string | undefined {
  if (output === undefined || output === '-' || namesFolder(output, ctx.cwd)) return output;
  const extension = path.extname(output);
  return `${output.slice(0, output.length - extension.length)}-${take}${extension}`;
}

/** The confirmation of N paid calls before the first: asked on a terminal, --yes otherwise, and --yes with --json. */
export function confirmTakes(ctx: CommandContext, takes: number, yes: boolean): Promise<void> {
  const calls = `${takes} takes are ${takes} paid calls`;
  return confirmCharge(
    ctx,
    yes,
    {
      cost: `${calls}, each charged the service's price of an image`,
      question: `${calls} (${takes} × the service's price of an image, charged as each is made). Make them?`,
      cancelled: 'Cancelled: no take was made and nothing was charged.',
    },
    { askWithJson: false },
  );
}

/** A take saved to disk, as `--json` lists it. */
export interface SavedTake {
  k: number;
  path: string;
  size: number;
  sha256: string;
  /** What this command was charged for it: 0 when its key replayed an earlier call's answer; null when the service did not say. */
  credits: number | null;
  /** The service's id of its generation. */
  id: string | null;
}

/** Takes saved before a failure, and how to make the rest (a `--json` error's `takes` and `resume`). */
export interface UnfinishedTakes {
  takes: SavedTake[];
  resume: string;
}

const unfinished = new WeakMap<object, UnfinishedTakes>();

/** Marks an error as ending a run of takes: what was saved, and how to make the rest. */
export function attachTakes<T>(error: T, takes: UnfinishedTakes): T {
  if (error !== null && typeof error === 'object') unfinished.set(error, takes);
  return error;
}

export function takesOf(error: unknown): UnfinishedTakes | undefined {
  return error !== null && typeof error === 'object' ? unfinished.get(error) : undefined;
}
