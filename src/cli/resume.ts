import { AbortedError, AssetgenError, TimeoutError } from '../client/errors.js';
import type { CommandContext } from './context.js';

/**
 * When a wait ends because of Ctrl-C or --timeout, the job goes on on the server. Returns the error
 * to throw: the cancellation, carrying the exact command that resumes the wait.
 */
export function withResumeHint(ctx: CommandContext, error: unknown, resume: string): unknown {
  const reason: unknown = ctx.signal.aborted ? ctx.signal.reason : error;
  const hint = `The job goes on without us; resume with: ${resume}`;
  if (reason instanceof AbortedError) return new AbortedError(reason.message, hint);
  if (reason instanceof TimeoutError) return new TimeoutError(reason.message, hint);
  return error instanceof AssetgenError || !ctx.signal.aborted ? error : reason;
}
