// Once a call has paid for a job, every way the command can end names the job and the exact
// command that resumes it. This is the one place that spells that command, for the waiting
// commands and for `assetgen jobs` alike.
import path from 'node:path';
import { redactUrl } from '../client/redact.js';
import type { JobKind } from '../config/journal.js';

/** Where the result of a resumed wait goes, and which service it is on. */
export interface ResumeTarget {
  kind: JobKind;
  id: string;
  /** The output as an absolute path (a trailing separator marks a folder), or '-' for stdout. */
  output?: string;
  /** Given only when the base URL came from --base-url (the environment is the same next time). */
  baseUrl?: string;
  /** Polling interval in ms when the user fixed one. */
  intervalMs?: number;
  force?: boolean;
}

/** The job a failure leaves behind, as `--json` reports it (`job: {id, kind, resume}`). */
export interface PaidJob {
  id: string;
  kind: JobKind;
  resume: string | null;
}

/** Words a POSIX shell passes through unchanged; everything else is single-quoted. */
const SHELL_SAFE = /^[A-Za-z0-9_./:@%+=,-]+$/;

export function shellQuote(word: string): string {
  return SHELL_SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The MCP tool call that picks up a paid job: the waiting tool, with every argument that decides
 * where its files go (an agent following it saves where the job's first call was told to, never
 * in the working directory by default).
 */
export interface ResumeToolCall {
  tool: 'wait_video' | 'wait_run';
  arguments: { id: string; output?: string; output_dir?: string; overwrite?: true };
}

export function resumeToolCall(target: Pick<ResumeTarget, 'kind' | 'id' | 'output' | 'force'>, cwd: string): ResumeToolCall {
  const args: ResumeToolCall['arguments'] = { id: target.id };
  // The working directory is the tools' default: left out. ('-', stdout, is no tool's output.)
  const output = target.output === undefined || target.output === '-' ? '.' : displayOutput(target.output, cwd);
  if (output !== '.') args[target.kind === 'video' ? 'output' : 'output_dir'] = output;
  if (target.force) args.overwrite = true;
  return { tool: target.kind === 'video' ? 'wait_video' : 'wait_run', arguments: args };
}

/** A tool's arguments as an agent would write them: `{"id": "vid_…", "output": "fx/"}`. */
export const toolArgumentsText = (args: Record<string, unknown>): string =>
  `{${Object.entries(args)
    .map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`)
    .join(', ')}}`;

/** `assetgen video wait <id> -o <output> --base-url <url>`: runnable as printed, from `cwd`. */
export function resumeCommand(target: ResumeTarget, cwd: string): string {
  const words = ['assetgen', target.kind === 'video' ? 'video' : 'runs', 'wait', target.id];
  if (target.output !== undefined) words.push('-o', displayOutput(target.output, cwd));
  if (target.force) words.push('--force');
  if (target.intervalMs !== undefined) words.push('--interval', `${target.intervalMs}ms`);
  if (target.baseUrl !== undefined) words.push('--base-url', redactUrl(target.baseUrl));
  return words.map(shellQuote).join(' ');
}

/** An absolute output path as the user would type it: relative when inside `cwd`, the folder mark kept. */
function displayOutput(output: string, cwd: string): string {
  if (output === '-') return '-';
  const isFolder = /[\\/]$/.test(output);
  const relative = path.relative(cwd, output);
  const shown = relative === '' ? '.' : !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : output.replace(/[\\/]$/, '');
  return isFolder && shown !== '.' ? `${shown}${path.sep}` : shown;
}

/** The absolute form of `-o` that resume commands and the journal carry. */
export function absoluteOutput(output: string | undefined, cwd: string): string {
  if (output === '-') return '-';
  if (output === undefined) return `${cwd}${path.sep}`;
  const resolved = path.resolve(cwd, output);
  return /[\\/]$/.test(output) ? `${resolved}${path.sep}` : resolved;
}

const jobs = new WeakMap<object, PaidJob>();
const targets = new WeakMap<object, ResumeTarget>();

/**
 * Marks an error as leaving a paid job behind; the error report prints it (human and --json). With
 * the job's target, where resuming it saves (an MCP answer names the waiting tool's arguments).
 */
export function attachJob<T>(error: T, job: PaidJob, target?: ResumeTarget): T {
  if (error !== null && typeof error === 'object' && !jobs.has(error)) {
    jobs.set(error, job);
    if (target) targets.set(error, target);
  }
  return error;
}

export function jobOf(error: unknown): PaidJob | undefined {
  return error !== null && typeof error === 'object' ? jobs.get(error) : undefined;
}

/** Where the wait of the job `attachJob` marked was saving. */
export function resumeTargetOf(error: unknown): ResumeTarget | undefined {
  return error !== null && typeof error === 'object' ? targets.get(error) : undefined;
}
