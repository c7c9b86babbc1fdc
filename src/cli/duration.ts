import { UsageError } from './errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `1500ms`, `30s`, `5m`, `2h`, or a bare number of seconds, into milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!match) throw new UsageError(`Invalid duration for ${flag}: "${text}".`, 'Use a number with a unit, e.g. 500ms, 30s, 5m, 1h.');
  const value = Number(match[1]) * UNITS[(match[2] ?? 's').toLowerCase()];
  return Math.round(value);
}
