// Exit codes: the single table. docs/cli.md and the skill document the same numbers; a test keeps
// them in step.
import {
  AbortedError,
  AuthenticationError,
  GenerationFailedError,
  InsufficientCreditsError,
  InvalidArgumentError,
  JobFailedError,
  MissingCredentialsError,
  TimeoutError,
} from '../client/errors.js';
import { PathRefusedError } from '../files/confine.js';
import { PipelineError } from '../pipeline/errors.js';
import { CancelledError, ChecksFailedError, CreditCapError, UsageError } from './errors.js';

export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 4,
  insufficientCredits: 5,
  jobFailed: 6,
  timeout: 7,
  /** `assetgen build --max-credits`: stopped submitting at the cap (what ran finished). */
  creditCap: 8,
  /**
   * `assetgen check`, `build --check`: an output breaks a `checks:` rule. Its own code, not 1: a CI
   * job tells assets that fail the gate from a tool that could not run.
   */
  checksFailed: 9,
  interrupted: 130,
  /** stdout or stderr was closed by its reader (`| head`); set by the entry, as SIGPIPE would. */
  brokenPipe: 141,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export function exitCodeFor(error: unknown): ExitCode {
  // A declined confirmation exits 2, as gh does: the command did not do what it was asked.
  if (error instanceof UsageError || error instanceof InvalidArgumentError || error instanceof CancelledError) return EXIT.usage;
  // A path the confinement rule refuses before anything was done (after paying, it is an output file error).
  if (error instanceof PathRefusedError) return EXIT.usage;
  // The manifest, the lock or the selection is wrong (src/pipeline), before anything was sent.
  if (error instanceof PipelineError) return EXIT.usage;
  if (error instanceof MissingCredentialsError || error instanceof AuthenticationError) return EXIT.auth;
  if (error instanceof InsufficientCreditsError) return EXIT.insufficientCredits;
  if (error instanceof JobFailedError || error instanceof GenerationFailedError) return EXIT.jobFailed;
  if (error instanceof TimeoutError) return EXIT.timeout;
  if (error instanceof CreditCapError) return EXIT.creditCap;
  if (error instanceof ChecksFailedError) return EXIT.checksFailed;
  if (error instanceof AbortedError) return EXIT.interrupted;
  return EXIT.error;
}
