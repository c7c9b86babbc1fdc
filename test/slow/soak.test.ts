// Soak: 300 paid commands as real processes, 4 at a time, against the bundled mock injecting faults
// into 10% of API calls (500, 503, 429, reset, truncate). Every command that fails after paying (or
// maybe paying) must say how to finish without paying again; the test does exactly what it says —
// reruns with the printed --idempotency-key, or runs the printed resume command — until each
// logical command is done. Then: each submission charged exactly once, every final file a whole
// PNG/GIF, and no non-zero exit without a job id or an idempotency key.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome, type CliResult } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const COMMANDS = Number(process.env.SOAK_COMMANDS ?? 300);
const CONCURRENCY = 4;
const MAX_ATTEMPTS = 6;

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  mock = await startMock({ credits: 10_000_000, seed: 'soak' });
  await mock.config({ videoPollAfterMs: 20, videoSteps: 2, videoOutcome: 'random', faults: { rate: 0.1 } });
  home = tempHome();
  env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
});
afterAll(async () => {
  await mock.close();
  home.remove();
});

type Kind = 'generate' | 'run' | 'video';
interface Outcome {
  kind: Kind;
  /** The id of what was paid for, once known (generation, run or video job). */
  id?: string;
  done: boolean;
  failedJob: boolean;
  exits: CliResult[];
}

function commandFor(index: number): { kind: Kind; args: string[] } {
  const out = `out/${index}/`;
  if (index % 7 === 3)
    return { kind: 'video', args: ['video', 'create', `torch ${index}`, '--yes', '-o', out, '--interval', '20ms', '--json'] };
  if (index % 4 === 1)
    return { kind: 'run', args: ['workflows', 'run', index % 2 ? 'wf_tileset' : 'wf_sprite_sheet', '-o', out, '--json'] };
  return { kind: 'generate', args: ['generate', `crate ${index}`, '--agent', 'sprite-artist', '-o', out, '--json'] };
}

const lastJson = (stderr: string): Record<string, any> | undefined => {
  try {
    return (JSON.parse(stderr.trim().split('\n').at(-1) ?? '') as { error: Record<string, any> }).error;
  } catch {
    return undefined;
  }
};

/** One logical command, followed through retries and resumes exactly as its output says. */
async function drive(index: number): Promise<Outcome> {
  const { kind, args } = commandFor(index);
  const outcome: Outcome = { kind, done: false, failedJob: false, exits: [] };
  let next = args;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && !outcome.done; attempt++) {
    const result = await runCli(next, { env, cwd: home.cwd, timeoutMs: 60_000 });
    outcome.exits.push(result);
    if (result.code === 0) {
      const document = JSON.parse(result.stdout) as { id?: string };
      outcome.id ??= document.id;
      outcome.done = true;
      break;
    }
    const error = lastJson(result.stderr);
    if (!error) throw new Error(`no JSON error from ${next.join(' ')}:\n${result.stderr}`);
    if (error.job?.id) outcome.id = error.job.id as string;
    if (result.code === 6) {
      outcome.failedJob = true;
      outcome.done = true;
    } else if (error.job?.resume) {
      next = [...(error.job.resume as string).split(' ').slice(1), '--json'];
    } else if (error.idempotencyKey) {
      next = [...args, '--idempotency-key', error.idempotencyKey as string];
    } else {
      throw new Error(`exit ${result.code} without a job or an idempotency key:\n${result.stderr}`);
    }
  }
  return outcome;
}

function isWholeImage(file: string): boolean {
  const bytes = fs.readFileSync(file);
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return bytes.subarray(-12, -8).readUInt32BE(0) === 0 && bytes.subarray(-8, -4).toString('latin1') === 'IEND';
  }
  return bytes.subarray(0, 6).toString('latin1') === 'GIF89a' && bytes.at(-1) === 0x3b;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('soak', () => {
  it(`${COMMANDS} paid commands at 10% faults: each paid for once, every file whole, every failure resumable`, async () => {
    const outcomes: Outcome[] = [];
    let cursor = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (cursor < COMMANDS) {
          const index = cursor++;
          outcomes[index] = await drive(index);
        }
      }),
    );

    // Every logical command finished (succeeded, or its job failed and was refunded).
    expect(outcomes.filter((outcome) => !outcome.done).map((outcome) => outcome.exits.at(-1)?.stderr)).toEqual([]);

    // Each paid submission charged exactly once: one ledger charge per id, one id per command.
    const state = await mock.state();
    const charges = new Map<string, number>();
    for (const entry of state.ledger as { amount: number; reason: string }[]) {
      const match = /^(generate|run|video) (\S+)/.exec(entry.reason);
      if (match && entry.amount < 0) charges.set(match[2]!, (charges.get(match[2]!) ?? 0) + 1);
    }
    expect([...charges.values()].filter((count) => count !== 1)).toEqual([]);
    const ids = outcomes.map((outcome) => outcome.id);
    expect(ids.filter((id) => id === undefined)).toEqual([]);
    expect(new Set(ids).size).toBe(COMMANDS);
    expect(charges.size).toBe(COMMANDS);
    for (const id of ids) expect(charges.has(id!)).toBe(true);

    // Every file under a final name is a whole image; no temp file is left behind.
    const files = filesUnder(path.join(home.cwd, 'out'));
    expect(files.filter((file) => path.basename(file).startsWith('.'))).toEqual([]);
    expect(files.filter((file) => !isWholeImage(file))).toEqual([]);
    const succeeded = outcomes.filter((outcome) => !outcome.failedJob).length;
    expect(new Set(files.map((file) => path.dirname(file))).size).toBe(succeeded);
  });
});
