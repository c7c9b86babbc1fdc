// Exit codes come from the kind of failure and a build's outcome union, never from message text:
// every message here is reworded at random and the exit codes do not move.
import { describe, expect, it } from 'vitest';
import * as client from '../../src/client/errors.js';
import { CancelledError, CreditCapError, UsageError } from '../../src/cli/errors.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { PathRefusedError } from '../../src/files/confine.js';
import { settleRun } from '../../src/commands/project/run-result.js';
import type { BuildRun, BuildRunResult } from '../../src/commands/project/records.js';
import { totalsOf, type AssetOutcome, type AssetResult } from '../../src/pipeline/outcome.js';
import type { CommandContext } from '../../src/cli/context.js';
import { CLI } from '../../src/cli/front-end.js';

// Odd messages and ids, fixed so that a failure can be reproduced.
const ODD = ['exit 2', 'interrupted by 130', 'capped at 8?', '', 'x'.repeat(40), 'timed out (exit 7)', 'Ctrl-C'];
let turn = 0;
const words = (): string => ODD[turn++ % ODD.length]!;

describe('exit codes', () => {
  it('follow the error class whatever the message says', () => {
    const cases: [() => Error, number][] = [
      [() => new UsageError(words()), EXIT.usage],
      [() => new CancelledError(words()), EXIT.usage],
      [() => new PathRefusedError(words()), EXIT.usage],
      [() => new client.MissingCredentialsError(words()), EXIT.auth],
      [() => new client.AuthenticationError(words(), { status: 401 }), EXIT.auth],
      [() => new client.InsufficientCreditsError(words(), { status: 402 }), EXIT.insufficientCredits],
      [() => new client.JobFailedError(words(), { jobId: 'vid_1', refunded: true }), EXIT.jobFailed],
      [() => new client.TimeoutError(words()), EXIT.timeout],
      [() => new CreditCapError(words()), EXIT.creditCap],
      [() => new client.AbortedError(words()), EXIT.interrupted],
      [() => new client.AssetgenError(words(), { code: 'anything' }), EXIT.error],
    ];
    for (const [make, code] of cases) for (let i = 0; i < 5; i++) expect(exitCodeFor(make())).toBe(code);
  });

  it("a build's exit follows its outcomes, with every reason and id reworded", () => {
    const ctx = { signal: new AbortController().signal, out: { json: true }, frontEnd: CLI } as unknown as CommandContext;
    const build = (outcomes: AssetOutcome[]): BuildRunResult => {
      const items: AssetResult[] = outcomes.map((outcome) => ({
        id: `a-${words().replace(/\W/g, '') || 'plain'}-${turn}`,
        status: 'new',
        outcome,
        files: [],
        credits: 0,
        reason: words(),
        ...(outcome === 'capped' ? { cap: turn % 2 ? 'unknown-cost' : 'over-cap' } : {}),
      }));
      return {
        manifest: 'm',
        lock: 'l',
        service: 's',
        items,
        totals: totalsOf(items),
        maxCredits: 10,
        credits: { charged: 0, refunded: 0, balance: null },
      };
    };
    const settled = (result: BuildRun): unknown => {
      try {
        settleRun(ctx, result);
        return undefined;
      } catch (error) {
        return error;
      }
    };
    const exitOf = (outcomes: AssetOutcome[]): number => {
      const error = settled(build(outcomes));
      return error === undefined ? EXIT.ok : exitCodeFor(error);
    };
    for (let i = 0; i < 5; i++) {
      expect(exitOf(['built', 'unchanged', 'kept', 'resumed', 'pruned'])).toBe(EXIT.ok);
      expect(exitOf(['built', 'skipped'])).toBe(EXIT.ok);
      expect(exitOf(['built', 'failed', 'capped'])).toBe(EXIT.error);
      expect(exitOf(['built', 'capped'])).toBe(EXIT.creditCap);
      // A gallery that could not be written: the result holds its error, raised once the outcomes pass.
      const galleryError = new client.AssetgenError(words(), { code: 'report_failed' });
      expect(settled({ ...build(['built', 'unchanged']), galleryError })).toBe(galleryError);
      expect(exitCodeFor(settled({ ...build(['built', 'capped']), galleryError }))).toBe(EXIT.creditCap);
    }
  });
});
