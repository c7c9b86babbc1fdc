// Runs one command: builds its context, turns Ctrl-C and --timeout into an abort signal, and maps
// whatever it throws to a message and an exit code (the table lives in src/cli/exit-codes.ts).
import {
  AbortedError,
  ApiError,
  AssetgenError,
  InsufficientCreditsError,
  JobFailedError,
  TimeoutError,
  UnexpectedResponseError,
  withHint,
} from '../client/errors.js';
import { creditsOfFailure } from './charged.js';
import { unknownChargesNote } from './credits.js';
import { CancelledError } from './errors.js';
import { idempotencyKeyOf } from './idempotency.js';
import { jobOf } from './resume.js';
import { takesOf } from './takes.js';
import { EXIT, exitCodeFor, type ExitCode } from './exit-codes.js';
import { LocalFileError, localFileErrorOf } from '../config/errors.js';
import { errorLine, warningLine } from '../ui/labels.cjs';
import { sanitizeText, terminalSafeJson } from '../ui/sanitize.js';
import { CommandContext, type GlobalOptions, type IO, type RetryTiming } from './context.js';
import { interruptSignals } from '../platform.js';

/** Where a command runs: the real process, or a test's in-memory streams. */
export interface Runtime {
  io: IO;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Turn SIGINT/SIGTERM (and on Windows SIGBREAK, SIGHUP: interruptSignals) into the command's abort signal (the real process only). */
  signals: boolean;
  /** Aborts the command as Ctrl-C would (tests). */
  interrupt?: AbortSignal;
  /**
   * Tests: --timeout runs out when this aborts, not on the clock, so "the wait stopped while a poll
   * was out" happens once the poll is out, on a loaded machine too, with no second of waiting.
   */
  timeoutWhen?: AbortSignal;
  /** Tests: how long a build's call in flight at Ctrl-C or --timeout gets to answer (CommandContext.answerGraceMs). */
  answerGraceMs?: number;
  /** Tests: the client's waits between a call's attempts (a retried 429 waits its Retry-After, 1 s, otherwise). */
  retryTiming?: RetryTiming;
}

export function processRuntime(): Runtime {
  return {
    io: {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      stdinIsTTY: Boolean(process.stdin.isTTY),
      stdoutIsTTY: Boolean(process.stdout.isTTY),
      stderrIsTTY: Boolean(process.stderr.isTTY),
    },
    env: process.env,
    cwd: process.cwd(),
    signals: true,
  };
}

/** How long a run may take to end after SIGTERM or Ctrl-C before it is stopped (exit 130). */
const INTERRUPT_GRACE_MS = 10_000;

export async function execute(
  rawOptions: Record<string, unknown>,
  body: (ctx: CommandContext) => Promise<void>,
  runtime: Runtime = processRuntime(),
): Promise<ExitCode> {
  const controller = new AbortController();
  let ctx: CommandContext | undefined;
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts += 1;
    // A second Ctrl-C means "now": skip the graceful path.
    if (interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort(new AbortedError());
    // SIGTERM (or Ctrl-C) always ends a run: every wait listens to the signal, and one that does
    // not (a bug) is cut off here. Stopping hard is safe: a paid job's key is on disk (the lock's
    // journal, the job journal) before its wait, as kill -9 would find it.
    // Never cleared: past the command, a handle still open (a stuck read) would keep the process
    // alive; unref'd, it never keeps alive a process that is done.
    if (runtime.signals)
      setTimeout(() => {
        runtime.io.stderr.write(`${warningLine(`still running ${INTERRUPT_GRACE_MS / 1000} s after the interrupt; stopping now.`)}\n`);
        process.exit(EXIT.interrupted);
      }, INTERRUPT_GRACE_MS).unref();
  };
  // Read once: the same list is removed at the end (the platform's: Windows adds SIGBREAK, SIGHUP).
  const signals = runtime.signals ? interruptSignals() : [];
  for (const signal of signals) process.on(signal, onSigint);
  runtime.interrupt?.addEventListener('abort', onSigint, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let runOut: (() => void) | undefined;
  try {
    const globals = toGlobals(rawOptions);
    // ASSETGEN_NO_INPUT=1 is --no-input for a whole session (CI, agents).
    if (isSet(runtime.env.ASSETGEN_NO_INPUT)) globals.input = false;
    ctx = await CommandContext.create({
      globals,
      io: runtime.io,
      env: runtime.env,
      cwd: runtime.cwd,
      signal: controller.signal,
      answerGraceMs: runtime.answerGraceMs,
      retryTiming: runtime.retryTiming,
    });
    if (globals.timeout !== undefined) {
      const ms = globals.timeout;
      runOut = (): void => controller.abort(new TimeoutError(`Gave up after --timeout ${formatMs(ms)}.`));
      if (!runtime.timeoutWhen) timer = setTimeout(runOut, ms);
      else if (runtime.timeoutWhen.aborted) runOut();
      else runtime.timeoutWhen.addEventListener('abort', runOut, { once: true });
    }
    await body(ctx);
    return EXIT.ok;
  } catch (error) {
    // An aborted operation may throw anything (an AbortError from the socket, say); the signal's
    // reason (AbortedError or TimeoutError) says what really happened.
    const effective = effectiveError(error, controller.signal);
    report(effective, ctx, rawOptions, runtime.io.stderr);
    return exitCodeFor(effective);
  } finally {
    clearTimeout(timer);
    if (runOut) runtime.timeoutWhen?.removeEventListener('abort', runOut);
    for (const signal of signals) process.off(signal, onSigint);
    runtime.interrupt?.removeEventListener('abort', onSigint);
    await ctx?.cleanup();
  }
}

/**
 * What really happened: an aborted operation may throw anything (an AbortError from the socket,
 * say); the signal's reason (AbortedError or TimeoutError) says what it was. A file-system error
 * nothing caught becomes a LocalFileError naming the path (exit 1), not "a bug in assetgen".
 */
export function effectiveError(error: unknown, signal: AbortSignal): unknown {
  const reason: unknown = signal.aborted ? signal.reason : undefined;
  const replaceWithReason =
    reason instanceof AssetgenError &&
    (!(error instanceof AssetgenError) || (error instanceof AbortedError && !(reason instanceof AbortedError)));
  return replaceWithReason ? reason : localFileErrorOf(error);
}

/**
 * Errors whose outcome the --json document already printed on stdout states (`auth status` not
 * ready: its document is the answer, with `ready: false` and the reason): the exit code alone
 * follows, not a second document on stderr.
 */
const answered = new WeakSet<object>();

export function answeredByDocument<E extends object>(error: E): E {
  answered.add(error);
  return error;
}

/**
 * A failure after calls whose charge is not known (an attempt that got no answer: a poll stopped
 * while out, a list's dropped attempt) says what that means, whichever call it was (a hint).
 */
function withUnknownChargesNote(error: unknown, ctx: CommandContext | undefined): unknown {
  return ctx ? withHint(error, unknownChargesNote(ctx.credits.report)) : error;
}

/** The `error` object of a `--json` failure (and of an MCP tool error), with `credits` once any were spent. */
export function errorDocument(failure: unknown, ctx: CommandContext | undefined): Record<string, unknown> {
  const error = withUnknownChargesNote(failure, ctx);
  const credits = ctx?.credits.report;
  // A call of unknown charge (a poll with no answer) may have spent some: said too.
  const spent = credits && (credits.charged || credits.refunded || credits.balance !== null || credits.unknownCharges);
  return { ...describe(error, exitCodeFor(error)), ...(spent ? { credits } : {}) };
}

function toGlobals(raw: Record<string, unknown>): GlobalOptions {
  return {
    baseUrl: typeof raw.baseUrl === 'string' ? raw.baseUrl : undefined,
    mock: raw.mock === true,
    json: raw.json === true,
    quiet: raw.quiet === true,
    color: raw.color !== false,
    input: raw.input !== false,
    timeout: typeof raw.timeout === 'number' ? raw.timeout : undefined,
    verbose: raw.verbose === true,
    allowInsecureHttp: raw.allowInsecureHttp === true,
    preview: typeof raw.preview === 'string' ? raw.preview : undefined,
  };
}

function report(
  failure: unknown,
  ctx: CommandContext | undefined,
  rawOptions: Record<string, unknown>,
  stderr: NodeJS.WritableStream,
): void {
  const error = withUnknownChargesNote(failure, ctx);
  // What the command spent before it failed, said as a success says it (after the error's own lines).
  const spent = ctx && creditsOfFailure(ctx);
  const json = ctx?.globals.json ?? rawOptions.json === true;
  const verbose = ctx?.globals.verbose ?? rawOptions.verbose === true;
  const write = (text: string): void => void stderr.write(`${text}\n`);
  if (json) {
    if (typeof error === 'object' && error !== null && answered.has(error)) return;
    // Agents and scripts read this: one JSON line on stderr; stdout stays empty on failure.
    write(terminalSafeJson({ error: errorDocument(error, ctx) }));
    return;
  }
  const style = ctx?.out.style;
  // Every failure's first line is `error: …` (ui/labels.cts), as commander's usage errors are.
  if (!(error instanceof AssetgenError)) {
    write(errorLine(error instanceof Error ? error.message : String(error), style));
    if (verbose && error instanceof Error && error.stack) write(error.stack);
    else write('This is a bug in assetgen; run again with --verbose for details.');
    if (spent) write(spent);
    return;
  }
  if (error instanceof CancelledError) {
    write(sanitizeText(error.message));
    // A "no" after something was charged (the message then does not say "nothing"): what was.
    if (spent) write(spent);
    return;
  }
  const interrupted = style ? style.bold(style.red('Interrupted.')) : 'Interrupted.';
  write(error instanceof AbortedError ? interrupted : errorLine(sanitizeText(error.message), style));
  if (error.hint) write(sanitizeText(error.hint));
  if (error instanceof ApiError) {
    write(`HTTP ${error.status}${error.requestId ? `, request id ${sanitizeText(error.requestId)}` : ''}`);
  }
  // A refused download has no body worth showing (raw undefined): the message and hint say it all.
  // Text is the client's bounded excerpt already (quoted as it is); a small parsed value as JSON.
  const raw = error instanceof UnexpectedResponseError ? error.raw : undefined;
  if (raw !== undefined) write(`Raw response: ${sanitizeText(typeof raw === 'string' ? raw : JSON.stringify(raw))}`);
  if (spent) write(spent);
  if (verbose && error.stack) write(error.stack);
}

function describe(error: unknown, exitCode: ExitCode): Record<string, unknown> {
  if (!(error instanceof AssetgenError)) {
    return { code: 'internal', message: error instanceof Error ? error.message : String(error), exitCode };
  }
  const out: Record<string, unknown> = { code: error.code, message: error.message, exitCode };
  if (error.hint) out.hint = error.hint;
  if (error instanceof ApiError) {
    out.status = error.status;
    if (error.requestId) out.requestId = error.requestId;
  }
  if (error instanceof InsufficientCreditsError) {
    out.required = error.required;
    out.balance = error.balance;
  }
  if (error instanceof JobFailedError) {
    out.jobId = error.jobId;
    out.refunded = error.refunded;
  }
  if (error instanceof UnexpectedResponseError && error.raw !== undefined) out.raw = error.raw;
  if (error instanceof LocalFileError) out.file = error.file;
  const job = jobOf(error);
  if (job) out.job = job;
  const idempotencyKey = idempotencyKeyOf(error);
  if (idempotencyKey) out.idempotencyKey = idempotencyKey;
  const takes = takesOf(error);
  if (takes) {
    out.takes = takes.takes;
    out.resume = takes.resume;
  }
  // Every exit-2 failure reads the same to a script: bad input, nothing sent.
  if (exitCode === EXIT.usage) out.code = 'usage';
  return out;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

const isSet = (value: string | undefined): boolean => value !== undefined && !['', '0', 'false', 'no'].includes(value.toLowerCase());
