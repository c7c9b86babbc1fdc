// Once a call has paid for a job, every way the command can end names the job and the exact
// command that resumes it. This is the one place that spells that command, for the waiting
// commands and for `assetgen jobs` alike.
import path from 'node:path';
import { redactUrl } from '../client/redact.js';
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import type { JobKind } from '../config/journal.js';

/** The jobs a command waits for (an image has no job: its answer is the image). */
export type WaitableKind = Exclude<JobKind, 'image'>;

/** Where the result of a resumed wait goes, and which service it is on. */
export interface ResumeTarget {
  kind: WaitableKind;
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
  kind: WaitableKind;
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

/**
 * The MCP tool call that sends a journalled submission again with its Idempotency-Key (the job or
 * image the first one made, not a second charge), read back from the command words the journal
 * holds (`JournalEntry.resubmit`, written by `paidCall`'s callers). null when no tool makes the
 * same request (a `--stream` generate goes to the session endpoint, which no tool calls).
 */
export interface ResubmitToolCall {
  tool: 'generate_image' | 'create_video' | 'run_workflow';
  arguments: Record<string, string | number | boolean | Record<string, string>>;
}

export function resubmitToolCall(words: readonly string[], cwd: string): ResubmitToolCall | null {
  const [command, subcommand] = words;
  const rest = command === 'generate' ? words.slice(1) : words.slice(2);
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (word === '--') {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    if (!word.startsWith('-')) positionals.push(word);
    else if (['--force', '--yes', '--stream', '--no-wait'].includes(word)) flags.set(word, ['']);
    else flags.set(word, [...(flags.get(word) ?? []), rest[++i] ?? '']);
  }
  const one = (flag: string) => flags.get(flag)?.[0];
  const key = one('--idempotency-key');
  if (key === undefined || positionals.length !== 1 || flags.has('--stream')) return null;
  const output = one('-o');
  const shown = output === undefined || output === '-' ? '.' : displayOutput(output, cwd);
  const saving = { ...(flags.has('--force') ? { overwrite: true } : {}), idempotency_key: key };
  if (command === 'generate') {
    const variants = Number(one('--variants') ?? 1);
    return {
      tool: 'generate_image',
      arguments: {
        prompt: positionals[0],
        agent: one('--agent') ?? '',
        ...(shown !== '.' ? { output: shown } : {}),
        ...saving,
        ...(variants > 1 ? { variants, confirm_paid_calls: variants } : {}),
      },
    };
  }
  if (command === 'video' && subcommand === 'create') {
    const duration = one('--duration');
    const aspectRatio = one('--aspect-ratio');
    const agent = one('--agent');
    return {
      tool: 'create_video',
      arguments: {
        prompt: positionals[0],
        ...(agent !== undefined ? { agent } : {}),
        ...(duration !== undefined ? { duration_seconds: Number(duration) } : {}),
        ...(aspectRatio !== undefined ? { aspect_ratio: aspectRatio } : {}),
        confirm_credits: VIDEO_JOB_COST,
        // As the first call was: waiting for the job, or only submitting it.
        wait: !flags.has('--no-wait'),
        ...(shown !== '.' ? { output: shown } : {}),
        ...saving,
      },
    };
  }
  if (command === 'workflows' && subcommand === 'run') {
    const overrides = Object.fromEntries(
      (flags.get('-s') ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1)]),
    );
    return {
      tool: 'run_workflow',
      arguments: {
        id: positionals[0],
        ...(Object.keys(overrides).length ? { overrides } : {}),
        ...(shown !== '.' ? { output_dir: shown } : {}),
        ...saving,
      },
    };
  }
  return null;
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

/**
 * A command's words with its one positional argument (a prompt, a workflow id) placed so that no
 * shell or option parser reads it as an option: after `--` at the end when it starts with "-".
 * Options added later go before that `--` (`withOptions`).
 */
export function withPositional(command: string[], positional: string, options: string[]): string[] {
  return positional.startsWith('-') ? [...command, ...options, '--', positional] : [...command, positional, ...options];
}

/** More options for a command's words, placed before a `--` that ends them, if any. */
export function withOptions(words: readonly string[], options: string[]): string[] {
  const end = words.indexOf('--');
  return end < 0 ? [...words, ...options] : [...words.slice(0, end), ...options, ...words.slice(end)];
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
