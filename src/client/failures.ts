// Failures on the way to an HTTP answer: what a retry may fix, aborts (Ctrl-C, --timeout) and
// socket-level errors, as errors of the family.
import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError, AssetgenError, ConnectionError, TimeoutError } from './errors.js';
import { isObject, str } from './values.js';

/** An attempt that failed in a way a retry may fix; `error` is what to throw when out of retries. */
export class RetryableFailure extends Error {
  constructor(
    readonly error: AssetgenError,
    readonly reason: string,
    /** What the server asked for, if anything. */
    readonly retryAfterMs?: number,
  ) {
    super(reason);
  }
}

/** The error to throw for an aborted call: the signal's reason when it is one of ours (timeout, Ctrl-C). */
export function abortError(signal: AbortSignal | undefined): AssetgenError {
  const reason: unknown = signal?.reason;
  return reason instanceof AssetgenError ? reason : new AbortedError();
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** Waits, or throws the abort error as soon as the signal fires. */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal);
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw abortError(signal);
  }
}

const TIMEOUT_CODES = new Set([
  // node's transport (transport.ts) and undici's, when a proxy or a caller's dispatcher is in use
  'CONNECT_TIMEOUT',
  'HEADERS_TIMEOUT',
  'BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** A failure below HTTP (socket, DNS, TLS, timeout) as an error of the family. */
export function transportError(error: unknown, what: string): AssetgenError {
  const code = isObject(error) ? str(error.code) : undefined;
  const detail = error instanceof Error ? error.message : String(error);
  if (code && TIMEOUT_CODES.has(code)) {
    return new TimeoutError(
      `${what}: the service did not answer in time (${code}).`,
      'The service may be slow or unreachable; try again later.',
    );
  }
  return new ConnectionError(`${what}: ${detail}${code && !detail.includes(code) ? ` (${code})` : ''}`, error);
}
