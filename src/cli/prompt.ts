// Every question the CLI asks goes through here, so every prompt behaves the same way:
// it is drawn on stderr, stops when the command is aborted, and Ctrl-C or Escape leaves with
// exit 130 and a line saying what did not happen ("Nothing was charged." / "Nothing was changed.").
// A "no" at a confirmation is the user's choice, not a failure: `confirmOrCancel` turns it into a
// quiet CancelledError.
import type * as InquirerModule from '@inquirer/prompts';
import { AbortedError } from '../client/errors.js';
import type { CommandContext } from './context.js';
import { CancelledError, UsageError } from './errors.js';

type Inquirer = typeof InquirerModule;
interface PromptContext {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  signal: AbortSignal;
}

const same = (text: string): string => text;
/**
 * Inquirer's look without colour, for --no-color, NO_COLOR and TERM=dumb (inquirer would otherwise
 * colour on its own). Typed loosely: each prompt takes the parts that apply to it.
 */
const PLAIN_THEME = {
  prefix: { idle: '?', done: '✔' },
  style: {
    answer: same,
    message: same,
    error: same,
    defaultAnswer: same,
    help: same,
    highlight: same,
    key: same,
    description: same,
    disabledChoice: same,
  },
  icon: { checked: '◉', unchecked: '◯', cursor: '❯' },
} as unknown as Record<string, never>;

/** The theme for this command's prompts: inquirer's own when colours are on. */
const themeFor = (ctx: CommandContext): Record<string, never> | undefined => (ctx.out.style.level === 0 ? PLAIN_THEME : undefined);

/** What is still untouched if the user backs out here; said when they do. */
export type Untouched = 'charged' | 'changed';

const ESCAPE = 0x1b;

/**
 * Runs one inquirer prompt with the command's streams and signal. Inquirer reads the terminal in raw
 * mode, so Ctrl-C arrives as a key, not as SIGINT: its ExitPromptError becomes an AbortedError here.
 */
export async function ask<T>(
  ctx: CommandContext,
  untouched: Untouched,
  prompt: (inquirer: Inquirer, context: PromptContext) => Promise<T>,
): Promise<T> {
  const inquirer = await import('@inquirer/prompts');
  const escape = new AbortController();
  // A lone Escape byte (not the start of an arrow-key sequence) backs out, as Ctrl-C does.
  const onData = (chunk: Buffer | string): void => {
    if (chunk.length === 1 && (typeof chunk === 'string' ? chunk.charCodeAt(0) : chunk[0]) === ESCAPE) escape.abort();
  };
  ctx.io.stdin.on('data', onData);
  const signal = AbortSignal.any([ctx.signal, escape.signal]);
  try {
    return await prompt(inquirer, { input: ctx.io.stdin, output: ctx.io.stderr, signal });
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (error instanceof Error && ['ExitPromptError', 'AbortPromptError', 'CancelPromptError'].includes(error.name)) {
      throw new AbortedError('Interrupted.', `Nothing was ${untouched}.`);
    }
    throw error;
  } finally {
    ctx.io.stdin.off('data', onData);
  }
}

/** Yes/no. */
export function confirm(ctx: CommandContext, message: string, options: { default: boolean; untouched: Untouched }): Promise<boolean> {
  return ask(ctx, options.untouched, (inquirer, context) =>
    inquirer.confirm({ message, default: options.default, theme: themeFor(ctx) }, context),
  );
}

/** Asks; a "no" ends the command quietly with `cancelled` (exit 2) and nothing done. */
export async function confirmOrCancel(
  ctx: CommandContext,
  message: string,
  options: { default: boolean; untouched: Untouched; cancelled: string },
): Promise<void> {
  if (!(await confirm(ctx, message, options))) throw new CancelledError(options.cancelled);
}

/** What a confirmation of a charge says: the cost (`cost`: "A video job costs 180 credits"), the question, and what a "no" leaves. */
export interface ChargeWords {
  cost: string;
  question: string;
  cancelled: string;
}

/**
 * Spending credits needs a yes: asked on a terminal, the command's --yes otherwise; without either
 * the command is refused (exit 2) and nothing is charged. With `askWithJson: false`, --json refuses
 * too instead of asking (a script reading the document must state the cost itself, with --yes).
 */
export async function confirmCharge(ctx: CommandContext, yes: boolean, words: ChargeWords, options = { askWithJson: true }): Promise<void> {
  if (yes) return;
  const jsonRefuses = !options.askWithJson && ctx.out.json;
  if (!ctx.interactive || jsonRefuses) {
    throw new UsageError(
      `${words.cost}: pass ${ctx.frontEnd.option('yes')} to confirm.`,
      jsonRefuses
        ? 'With --json nothing is asked; nothing was charged.'
        : 'There is no terminal to ask on (or --no-input was given); nothing was charged.',
    );
  }
  await confirmOrCancel(ctx, words.question, { default: false, untouched: 'charged', cancelled: words.cancelled });
}

/** A secret, masked as it is typed. */
export function password(ctx: CommandContext, message: string, untouched: Untouched): Promise<string> {
  return ask(ctx, untouched, (inquirer, context) => inquirer.password({ message, mask: '*', theme: themeFor(ctx) }, context));
}

/** Free text with an optional default and validation. */
export function input(
  ctx: CommandContext,
  message: string,
  options: { default?: string; untouched: Untouched; validate?: (value: string) => true | string },
): Promise<string> {
  return ask(ctx, options.untouched, (inquirer, context) =>
    inquirer.input({ message, default: options.default, validate: options.validate, theme: themeFor(ctx) }, context),
  );
}

/** One of several choices. */
export function select<T>(ctx: CommandContext, message: string, choices: { name: string; value: T }[], untouched: Untouched): Promise<T> {
  return ask(ctx, untouched, (inquirer, context) => inquirer.select<T>({ message, choices, theme: themeFor(ctx) }, context));
}

/** Several of several choices. */
export function checkbox<T>(
  ctx: CommandContext,
  message: string,
  choices: { name: string; value: T; checked?: boolean }[],
  options: { required?: boolean; untouched: Untouched },
): Promise<T[]> {
  return ask(ctx, options.untouched, (inquirer, context) =>
    inquirer.checkbox<T>(
      { message, choices, required: options.required, pageSize: Math.min(choices.length, 20), theme: themeFor(ctx) },
      context,
    ),
  );
}
