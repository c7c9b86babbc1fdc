// The errors both transports (transport.ts, transport-pooled.ts) raise on a request of their own
// making: an abort, and bytes past an answer's announced end. In one place, so the two say the same.
import { UnexpectedResponseError } from './errors.js';
import { redactUrl } from './redact.js';
import type { WireRequest } from './transport-records.js';

export function abortedError(): Error {
  return Object.assign(new Error('The request was aborted.'), { name: 'AbortError', code: 'ABORT_ERR' });
}

export function excessError(wire: WireRequest): UnexpectedResponseError {
  return new UnexpectedResponseError(
    `${wire.method} ${redactUrl(wire.url)}: the service sent more bytes than the answer announced (its Content-Length or last chunk); it was not used.`,
    undefined,
  );
}
