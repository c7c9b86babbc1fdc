// Parsers for option values, used by the command table at declaration (commander's argParser), so
// every bad value is the same exit-2 usage error before a command starts. CommonJS like the table.
import { InvalidArgumentError } from 'commander';
import { MAX_TAKES } from '../api/takes.cjs';
import { baseUrlProblem, htmlPathProblem } from './value-checks.cjs';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** The longest delay a Node timer can hold (~24.8 days); longer ones fire at once. */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** Parses `1500ms`, `30s`, `5m`, `2h`, or a bare number of seconds, into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!match) throw new InvalidArgumentError('Use a number with a unit, e.g. 500ms, 30s, 5m, 1h.');
  const ms = Math.round(Number(match[1]) * UNITS[(match[2] ?? 's').toLowerCase()]);
  if (ms < 1) throw new InvalidArgumentError('Use a duration of at least 1ms.');
  if (ms > MAX_DURATION_MS) throw new InvalidArgumentError('Use a duration under 24 days.');
  return ms;
}

export function parseBaseUrl(text: string): string {
  const problem = baseUrlProblem(text);
  if (problem) throw new InvalidArgumentError(problem);
  return text.trim();
}

/** A TCP port; 0 picks a free one. */
export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port > 65535) throw new InvalidArgumentError('Use 0-65535 (0 picks a free port).');
  return port;
}

/** A whole number ≥ `min`, or undefined (no sign, no fraction, no exponent; safe as an integer). */
function wholeNumber(text: string, min: number): number | undefined {
  const value = Number(text);
  return /^\d+$/.test(text.trim()) && Number.isSafeInteger(value) && value >= min ? value : undefined;
}

/** A whole number ≥ 0 (credits). */
export function parseCount(text: string): number {
  const value = wholeNumber(text, 0);
  if (value === undefined) throw new InvalidArgumentError('Use a whole number ≥ 0.');
  return value;
}

/** A credit cap: a whole number ≥ 0, or `none` (no cap, over the manifest's `budget`). */
export function parseCreditCap(text: string): number | 'none' {
  if (text.trim().toLowerCase() === 'none') return 'none';
  try {
    return parseCount(text);
  } catch {
    throw new InvalidArgumentError('Use a whole number of credits ≥ 0, or none.');
  }
}

/** A whole number ≥ 1 (limits): one message for every value refused, 0, -1 and 1.5 alike. */
export function parsePositiveInt(text: string): number {
  const value = wholeNumber(text, 1);
  if (value === undefined) throw new InvalidArgumentError('Use a whole number ≥ 1.');
  return value;
}

export { MAX_TAKES };

/** A number of takes: a whole number from 1 to MAX_TAKES. */
export function parseTakes(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > MAX_TAKES)
    throw new InvalidArgumentError(`Use a whole number from 1 to ${MAX_TAKES}.`);
  return value;
}

/** A positive number of seconds (video length). */
export function parseSeconds(text: string): number {
  const value = Number(text);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text) || !(value > 0)) throw new InvalidArgumentError('Use a positive number of seconds, e.g. 4.');
  return value;
}

/** The file of an HTML report (`--report`). */
export function parseHtmlPath(text: string): string {
  const problem = htmlPathProblem(text);
  if (problem) throw new InvalidArgumentError(problem);
  return text.trim();
}
