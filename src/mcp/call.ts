// One tool call of `assetgen mcp`: a context of its own (no stdout, its own credit tally, signal
// and clients) derived from the server's; the command's result — the object `--json` prints — as
// the tool's structuredContent, and anything thrown as a tool error with the same code/message/hint
// as a `--json` error.
import { Readable, Writable } from 'node:stream';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AbortedError, TimeoutError } from '../client/errors.js';
import type { Command, CommandResult } from '../cli/command.js';
import type { CommandContext, JobProgress } from '../cli/context.js';
import { unknownChargesNote } from '../cli/credits.js';
import type { FrontEnd } from '../cli/front-end.js';
import { effectiveError, errorDocument } from '../cli/execute.js';
import { jobOf, resumeTargetOf, resumeToolCall, toolArgumentsText, type ResumeToolCall } from '../cli/resume.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every tool handler gets from the server. */
export interface ServerScope {
  /** The server's own context (its mock and journal are shared with every call). */
  ctx: CommandContext;
  /** Output paths may leave the working directory only when the server was started with --allow-outside. */
  allowOutside: boolean;
  /** Aborted when the server shuts down: calls in flight end with it. */
  closing: AbortSignal;
}

export interface CallOptions {
  /** Stop waiting after this long and answer with the job and how to resume it (waiting tools). */
  waitBudgetMs?: number;
  /** The words of the call's messages: the tool's arguments and the other tools, never CLI flags. */
  frontEnd?: FrontEnd;
}

/** What a tool body returns: the command's result (the tool's structuredContent), and extra content (an image). */
export interface CallOutcome<R extends CommandResult = CommandResult> {
  result: R;
  content?: CallToolResult['content'];
}

/** A command's result, and the error its outcome stands for (a build with failed assets): both go back to the client. */
class SettledError extends Error {
  constructor(
    readonly error: unknown,
    readonly result: CommandResult,
  ) {
    super('settled');
  }
}

/**
 * Runs a command for a tool: its result's document (what `--json` prints), as the command line
 * computes it. When the outcome stands for an error (`settle`), the call is a tool error that
 * carries the document too.
 */
export async function callCommand<A extends unknown[], R extends CommandResult, D extends CommandResult>(
  ctx: CommandContext,
  cmd: Command<A, R, D>,
  ...args: A
): Promise<D> {
  const result = await cmd.run(ctx, ...args);
  try {
    cmd.settle?.(ctx, result, ...args);
  } catch (error) {
    throw new SettledError(error, cmd.document(result));
  }
  return cmd.document(result);
}

/**
 * Runs `body` in a fresh per-call context and turns the outcome into a tool result: the command's
 * result as structuredContent (checked against the tool's outputSchema by the SDK) and as JSON text.
 * Never throws: every failure is a tool result with isError (the server keeps serving).
 */
export async function runCall(
  scope: ServerScope,
  extra: Extra,
  body: (ctx: CommandContext) => Promise<CallOutcome>,
  options: CallOptions = {},
): Promise<CallToolResult> {
  const controller = new AbortController();
  const budget = options.waitBudgetMs !== undefined ? new TimeoutError(`Still running after ${options.waitBudgetMs / 1000}s.`) : undefined;
  const abort = (reason: unknown) => () => controller.abort(reason);
  const onCancel = abort(new AbortedError('The MCP client cancelled the call.'));
  const onClose = abort(new AbortedError('The MCP server is shutting down.'));
  if (extra.signal.aborted) onCancel();
  extra.signal.addEventListener('abort', onCancel, { once: true });
  scope.closing.addEventListener('abort', onClose, { once: true });
  const timer = budget ? setTimeout(abort(budget), options.waitBudgetMs) : undefined;
  const ctx = scope.ctx.forCall({
    io: {
      stdin: Readable.from([]),
      // The server's stdout is the protocol: nothing a command writes may reach it.
      stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
      stderr: scope.ctx.io.stderr,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
    },
    signal: controller.signal,
    globals: { json: true, input: false },
    onJobProgress: progressNotifier(extra),
    frontEnd: options.frontEnd,
    // Every save of the call checks its real path against the working directory again.
    ...(scope.allowOutside ? {} : { outputRoot: scope.ctx.cwd }),
  });
  try {
    const { result, content = [] } = await body(ctx);
    return { content: [jsonText(result), ...content], structuredContent: result as Record<string, unknown> };
  } catch (thrown) {
    const settled = thrown instanceof SettledError ? thrown : undefined;
    const effective = effectiveError(settled ? settled.error : thrown, controller.signal);
    const job = jobOf(effective);
    if (budget && effective === budget && job) {
      const target = resumeTargetOf(effective);
      const resume = target ? resumeToolCall(target, ctx.cwd) : resumeToolCall({ kind: job.kind, id: job.id }, ctx.cwd);
      return stillRunning(ctx, job, resume, options.waitBudgetMs ?? 0);
    }
    return {
      isError: true,
      content: [jsonText({ error: errorDocument(effective, ctx) }), ...(settled ? [jsonText(settled.result)] : [])],
      // The outcome's result under the tool's outputSchema too (a build with failed assets: every item, the totals).
      ...(settled ? { structuredContent: settled.result as Record<string, unknown> } : {}),
    };
  } finally {
    clearTimeout(timer);
    extra.signal.removeEventListener('abort', onCancel);
    scope.closing.removeEventListener('abort', onClose);
    await ctx.cleanup();
  }
}

/** A wait that would outlast the client's patience: the job goes on, and this says how to pick it up. */
function stillRunning(
  ctx: CommandContext,
  job: NonNullable<ReturnType<typeof jobOf>>,
  resume: ResumeToolCall,
  budgetMs: number,
): CallToolResult {
  const credits = ctx.credits.report;
  const unknown = unknownChargesNote(credits);
  const document = {
    job,
    state: 'running',
    message: `The ${job.kind === 'video' ? 'video job' : 'run'} ${job.id} is still running after ${Math.round(budgetMs / 1000)}s; it is paid for and goes on.${unknown ? ` ${unknown}` : ''}`,
    resume,
    hint: stillRunningHint(resume, job.resume),
    credits,
    ...(ctx.globals.mock ? { mock: true } : {}),
  };
  return { content: [jsonText(document)], structuredContent: document };
}

/** How to pick up a job still running: the tool to call with its arguments, and the command line when there is one. */
export function stillRunningHint(resume: ResumeToolCall, command: string | null): string {
  const call = `Call ${resume.tool} with ${toolArgumentsText(resume.arguments)} to go on waiting (no new charge)`;
  return command ? `${call}, or run: ${command}` : `${call}.`;
}

export const jsonText = (value: unknown): { type: 'text'; text: string } => ({ type: 'text', text: JSON.stringify(value, null, 2) });

/**
 * MCP progress notifications for the job a call follows, when the client asked for them (a
 * progressToken). Progress must grow with each notification: a run reports nodes done (a poll that
 * does not advance is not reported), a video job the number of polls so far.
 */
function progressNotifier(extra: Extra): ((update: JobProgress) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = 0;
  let polls = 0;
  return (update) => {
    polls += 1;
    const value = update.kind === 'run' ? (update.progress ?? polls) : polls;
    if (value <= last) return;
    last = value;
    const total = update.kind === 'run' ? update.total : undefined;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: value, ...(total !== undefined ? { total } : {}), message: update.message },
      })
      .catch(() => {});
  };
}
