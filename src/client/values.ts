// Reading untrusted values: plain objects, strings, numbers, headers and Retry-After. The record
// readers (normalize.ts) and the transport build on these.
export type Json = Record<string, unknown>;
export type HeaderMap = Record<string, string | string[] | undefined>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/**
 * The largest credit figure (a charge, a refund, a balance) the client believes: no account holds a
 * trillion credits, so a figure past it is a broken or hostile service, not money.
 */
export const MAX_CREDITS = 1e12;

/**
 * A credit figure as the service sent it: undefined when absent or not a number at all (another
 * service's shape), `'absurd'` when it is a number no account can hold (negative, not finite, past
 * MAX_CREDITS), else the number. The one check every reader of credits goes through.
 */
export function creditFigure(value: unknown): number | 'absurd' | undefined {
  const figure = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (Number.isNaN(figure)) return undefined;
  return Number.isFinite(figure) && figure >= 0 && figure <= MAX_CREDITS ? figure : 'absurd';
}

export function pick(record: Json, keys: readonly string[]): unknown {
  for (const key of keys) if (record[key] !== undefined && record[key] !== null) return record[key];
  return undefined;
}

export function header(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** `retry-after-ms` (milliseconds), else `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(headers: HeaderMap, now = Date.now()): number | undefined {
  const ms = num(header(headers, 'retry-after-ms'));
  if (ms !== undefined && ms >= 0) return ms;
  const value = header(headers, 'retry-after')?.trim();
  if (!value) return undefined;
  const seconds = num(value);
  if (seconds !== undefined) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
