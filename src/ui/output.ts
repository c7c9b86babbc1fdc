// Where output goes: results on stdout (paths, URLs, or exactly one JSON document with --json);
// everything for a human (progress, hints, warnings, errors) on stderr, silenced by --quiet.
// Colours come from chalk, loaded only when there are colours to draw (a terminal, or FORCE_COLOR):
// a piped or --json run never pays for it.
import { errorLine, warningLine } from './labels.cjs';
import { sanitizeText, terminalSafeJson } from './sanitize.js';

/** The few styles the CLI uses; a chalk instance fits, and so does the plain one. */
export interface Style {
  readonly level: number;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

const same = (text: string): string => text;
export const PLAIN_STYLE: Style = { level: 0, bold: same, dim: same, red: same, yellow: same, green: same, cyan: same };

export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stderrIsTTY: boolean;
}

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  /** false when --no-color was given. */
  color: boolean;
  env: Record<string, string | undefined>;
}

/** The colour level the options and environment decide; undefined: ask the terminal (chalk). */
export function presetColorLevel(options: OutputOptions, stderrIsTTY: boolean): 0 | 1 | 2 | 3 | undefined {
  const env = options.env;
  if (!options.color || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb') return 0;
  const forced = env.FORCE_COLOR;
  if (forced !== undefined) {
    if (forced === '' || forced === 'true') return 1;
    if (forced === 'false' || forced === '0') return 0;
    const level = Number.parseInt(forced, 10);
    return Number.isFinite(level) ? (Math.min(Math.max(level, 0), 3) as 0 | 1 | 2 | 3) : 1;
  }
  if (!stderrIsTTY) return 0;
  return undefined;
}

export async function createStyle(options: OutputOptions, stderrIsTTY: boolean): Promise<Style> {
  const preset = presetColorLevel(options, stderrIsTTY);
  if (preset === 0) return PLAIN_STYLE;
  const { Chalk, supportsColorStderr } = await import('chalk');
  const level = preset ?? (supportsColorStderr ? supportsColorStderr.level : 0);
  return level === 0 ? PLAIN_STYLE : new Chalk({ level });
}

export class Output {
  readonly style: Style;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly streams: OutputStreams;
  /** Spinners and in-place updates: only on a terminal that can redraw (not TERM=dumb). */
  readonly animate: boolean;
  #jsonWritten = false;

  constructor(streams: OutputStreams, options: Omit<OutputOptions, 'color'>, style: Style = PLAIN_STYLE) {
    this.streams = streams;
    // A terminal that reports no width (some pseudo-terminals) would make a spinner's redraw
    // arithmetic misbehave; a dumb terminal cannot move the cursor at all.
    const columns = (streams.stderr as { columns?: number }).columns ?? 0;
    this.animate = streams.stderrIsTTY && columns > 0 && options.env.TERM !== 'dumb';
    this.json = options.json;
    this.quiet = options.quiet;
    this.style = style;
  }

  /** A result line for stdout (a path, a URL, a table row). Ignored in --json mode. */
  result(line: string): void {
    if (this.json) return;
    this.streams.stdout.write(`${line}\n`);
  }

  /** The one JSON document of a --json run. */
  document(value: unknown): void {
    if (!this.json) return;
    if (this.#jsonWritten) throw new Error('Output.document called twice: --json prints exactly one document');
    this.#jsonWritten = true;
    this.streams.stdout.write(`${terminalSafeJson(value, 2)}\n`);
  }

  /** Progress and hints for a human, on stderr; nothing with --quiet. */
  info(message: string): void {
    if (this.quiet) return;
    this.streams.stderr.write(`${message}\n`);
  }

  /** `warning: …` (ui/labels.cts), on stderr; nothing with --quiet. */
  warn(message: string): void {
    if (this.quiet) return;
    this.streams.stderr.write(`${warningLine(message, this.style)}\n`);
  }

  /** Errors are printed even with --quiet: a script needs to know why it failed. */
  error(message: string): void {
    this.streams.stderr.write(`${message}\n`);
  }

  /** A failure beside the one the command ends with: `error: …` (ui/labels.cts), even with --quiet. */
  failure(message: string): void {
    this.error(errorLine(message, this.style));
  }

  /** Server-provided text, made safe for a terminal. */
  server(text: string): string {
    return sanitizeText(text);
  }
}
