// Where output goes: results on stdout (paths, URLs, or exactly one JSON document with --json);
// everything for a human (progress, hints, warnings, errors) on stderr, silenced by --quiet.
import { Chalk, supportsColorStderr, type ChalkInstance } from 'chalk';
import { sanitizeText } from './sanitize.js';

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

export function colorLevel(options: OutputOptions, stderrIsTTY: boolean): 0 | 1 | 2 | 3 {
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
  return supportsColorStderr ? supportsColorStderr.level : 0;
}

export class Output {
  readonly style: ChalkInstance;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly streams: OutputStreams;
  #jsonWritten = false;

  constructor(streams: OutputStreams, options: OutputOptions) {
    this.streams = streams;
    this.json = options.json;
    this.quiet = options.quiet;
    this.style = new Chalk({ level: colorLevel(options, streams.stderrIsTTY) });
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
    this.streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Progress and hints for a human, on stderr; nothing with --quiet. */
  info(message: string): void {
    if (this.quiet) return;
    this.streams.stderr.write(`${message}\n`);
  }

  warn(message: string): void {
    if (this.quiet) return;
    this.streams.stderr.write(`${this.style.yellow('warning:')} ${message}\n`);
  }

  /** Errors are printed even with --quiet: a script needs to know why it failed. */
  error(message: string): void {
    this.streams.stderr.write(`${message}\n`);
  }

  /** Server-provided text, made safe for a terminal. */
  server(text: string): string {
    return sanitizeText(text);
  }
}
