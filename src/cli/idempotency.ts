// A paid request whose answer was lost (connection dropped, server error after retries, Ctrl-C)
// may still have been carried out and charged. Every paid command sends an Idempotency-Key and,
// when the outcome is unknown, tells the user how to ask again without paying twice — which holds
// as long as the service honours Idempotency-Key (docs/cli.md, "Paying once").
import { randomUUID } from 'node:crypto';
import {
  AbortedError,
  ApiError,
  AssetgenError,
  CONNECTION_HINT,
  RATE_LIMIT_HINT,
  SERVER_HINT,
  ConnectionError,
  InvalidArgumentError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnexpectedResponseError,
} from '../client/errors.js';
import type { Credits } from '../client/types.js';
import { ANSWERED, REFUSED, submissionId, type JobKind } from '../config/journal.js';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import { mockEndsWithCommand } from './front-end.js';

/** Makes one paid call with an idempotency key (the user's, or a fresh one); its charge is tallied by the client's onCredits. */
export async function paidCall<T extends { credits: Credits }>(
  ctx: CommandContext,
  providedKey: string | undefined,
  call: (key: { idempotencyKey: string; keyIsNew: boolean }) => Promise<T>,
  /** The key was never sent before (a build's new generation): see CallOptions.keyIsNew. A key the user gave may have been. */
  keyIsNew = providedKey === undefined,
  /**
   * How to ask again when this call is one of several made from one key (takes: cli/takes.ts): the
   * key to report and the way to ask, instead of this call's own key and "run again with it".
   */
  askAgain?: { key: string; how: string },
  /**
   * A job's submission (video create, workflows run): journalled with the key before it is sent,
   * so an answer that never comes back (Ctrl-C, a dropped connection, an MCP client that cancels)
   * leaves `assetgen jobs` the command that asks for the same job again without paying twice.
   */
  journal?: {
    kind: JobKind;
    baseUrl: string;
    label: string;
    resubmit: (key: string) => string[];
    /**
     * The answer is not the end (an image: its file still to be saved): the caller settles the
     * record once it is (`settleSubmission`), so a save that fails leaves the command that gets
     * the paid image again without paying twice.
     */
    settledByCaller?: boolean;
  },
): Promise<T> {
  checkIdempotencyKey(ctx, providedKey);
  const key = providedKey ?? randomUUID();
  const pending = journal && ctx.journal.recordSubmitting(journal.kind, journal.baseUrl, key, journal.label, journal.resubmit(key));
  const settle = (state: string) => pending && ctx.journal.recordUpdate(journal.kind, pending, journal.baseUrl, { state });
  try {
    const answer = await call({ idempotencyKey: key, keyIsNew });
    if (!journal?.settledByCaller) settle(ANSWERED);
    return answer;
  } catch (caught) {
    // Ctrl-C or --timeout may surface as any error from the socket; the signal says which it was.
    const error: unknown = ctx.signal.aborted ? ctx.signal.reason : caught;
    if (!outcomeUnknown(error)) {
      // Refused by the service (a 4xx) or never sent: nothing was done. Anything else may have made the job.
      if ((error instanceof ApiError && error.status < 500) || error instanceof InvalidArgumentError) settle(REFUSED);
      throw error;
    }
    idempotencyKeys.set(error as object, askAgain?.key ?? key);
    const how = askAgain?.how ?? `${ctx.frontEnd.again} with ${ctx.frontEnd.option('idempotencyKey', key)}`;
    // Not "try again": asked again without the key, a call the service carried out is paid twice.
    if (error instanceof AssetgenError && error.hint !== undefined) error.hint = WITHOUT_TRY_AGAIN.get(error.hint) ?? error.hint;
    const advice = mockEndsWithCommand(ctx.globals, ctx.frontEnd)
      ? // The key is no use there: the next --mock is a fresh mock, which never saw it.
        'This call went to the bundled mock (--mock), which ends with this command: nothing was charged for real, and a later command starts a fresh mock that never saw this call.'
      : `${error instanceof UnexpectedResponseError ? 'The service answered, but its answer could not be used: it may have done this (and charged for it).' : 'The service may have done this (and charged for it) before the answer was lost.'} ${how} to get that result without paying twice, if the service honours Idempotency-Key (its document does not promise it; the bundled mock does).`;
    // The way to ask again comes first: it is what decides whether the next attempt pays.
    if (error instanceof AssetgenError && !error.hint?.includes(advice)) error.hint = error.hint ? `${advice}\n${error.hint}` : advice;
    throw error;
  }
}

/** A journalled submission (sent with `key`) whose answer is in and whose result is saved: no longer pending. */
export function settleSubmission(ctx: CommandContext, kind: JobKind, baseUrl: string, key: string): void {
  ctx.journal.recordUpdate(kind, submissionId(key), baseUrl, { state: ANSWERED });
}

/**
 * A paid call whose result could not be saved (a file in the way, a full disk, a download cut):
 * the error carries the key (`--json`: `idempotencyKey`), and says how to get the same result
 * again without paying twice — first, as that advice decides what the next attempt costs.
 */
export function paidButNotSaved(ctx: CommandContext, error: unknown, key: string): unknown {
  if (!(error instanceof AssetgenError) || error instanceof AbortedError) return error;
  idempotencyKeys.set(error, key);
  const advice = mockEndsWithCommand(ctx.globals, ctx.frontEnd)
    ? 'It was made on the bundled mock (--mock), which ends with this command: nothing was charged for real.'
    : `It is paid for: ${ctx.frontEnd.again.charAt(0).toLowerCase()}${ctx.frontEnd.again.slice(1)} with ${ctx.frontEnd.option('idempotencyKey', key)} (and ${ctx.frontEnd.option('force')} to replace a file in the way, or another ${ctx.frontEnd.option('output')}) to save it without paying twice, if the service honours Idempotency-Key (its document does not promise it; the bundled mock does).`;
  error.hint = error.hint ? `${advice}\n${error.hint}` : advice;
  return error;
}

/** The client's generic hints, without "try again" (said after how to ask again without paying twice). */
const WITHOUT_TRY_AGAIN = new Map([
  [CONNECTION_HINT, 'Check the base URL and your network.'],
  [SERVER_HINT, 'The service had a problem.'],
  [RATE_LIMIT_HINT, 'The service is rate limiting: wait a little first.'],
]);

/** Idempotency-Key's rule for a key the user gives: 1–255 visible ASCII characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A key the user gave must be one the header can carry: a usage error (exit 2) before anything is sent. */
export function checkIdempotencyKey(ctx: CommandContext, providedKey: string | undefined): void {
  if (providedKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(providedKey)) {
    throw new UsageError(`Invalid ${ctx.frontEnd.option('idempotencyKey')}: use 1-${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters.`);
  }
}

const idempotencyKeys = new WeakMap<object, string>();

/** The key of a paid call whose outcome is unknown (`--json` errors report it as `idempotencyKey`). */
export function idempotencyKeyOf(error: unknown): string | undefined {
  return error !== null && typeof error === 'object' ? idempotencyKeys.get(error) : undefined;
}

/**
 * Failures after which the request may or may not have been carried out: no answer, a server
 * error, or an answer that could not be used (it may be the record of a paid job).
 */
function outcomeUnknown(error: unknown): boolean {
  return (
    error instanceof ConnectionError ||
    error instanceof UnexpectedResponseError ||
    error instanceof ServerError ||
    error instanceof RateLimitError ||
    error instanceof TimeoutError ||
    error instanceof AbortedError
  );
}
