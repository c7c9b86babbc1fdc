import { boundedRaw, excerpt, type SentSize } from './excerpt.js';
import { creditFigure, header, isObject, num, retryAfterMs, str, type HeaderMap } from './values.js';

// One error family for everything the client can report. The CLI maps these to exit codes in
// one place (src/cli/exit-codes.ts); the client itself knows nothing of processes or terminals.

export class AssetgenError extends Error {
  /** Machine-readable code, stable across versions (printed in `--json` errors). */
  readonly code: string;
  /** What the user can do about it, when there is something to say (see `withHint`). */
  hint?: string;

  constructor(message: string, options: { code: string; hint?: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.hint = options.hint;
  }
}

/**
 * Adds a line of advice to an error where it is caught, keeping the error itself (its class, status,
 * request id and code), so what it says and what `--json` reports stay whole. Other values pass through.
 */
export function withHint<T>(error: T, hint: string | undefined): T {
  if (hint && error instanceof AssetgenError && !error.hint?.includes(hint)) {
    error.hint = error.hint ? `${error.hint}\n${hint}` : hint;
  }
  return error;
}

/** The caller passed something the client cannot use (an empty id, a base URL that is not http(s)). */
export class InvalidArgumentError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'invalid_argument', hint });
  }
}

/** No credentials of the kind the endpoint needs. */
export class MissingCredentialsError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'missing_credentials', hint });
  }
}

export interface ApiErrorDetails {
  status: number;
  code?: string;
  requestId?: string;
  /** The response body as received (parsed JSON when it was JSON, else text). */
  body?: unknown;
  hint?: string;
}

/** The service answered with an error status. */
export class ApiError extends AssetgenError {
  readonly status: number;
  readonly requestId?: string;
  readonly body?: unknown;

  constructor(message: string, details: ApiErrorDetails) {
    super(message, { code: details.code ?? `http_${details.status}`, hint: details.hint });
    this.status = details.status;
    this.requestId = details.requestId;
    this.body = details.body;
  }
}

export class AuthenticationError extends ApiError {}
export class NotFoundError extends ApiError {}
export class InvalidRequestError extends ApiError {}
export class ServerError extends ApiError {}

export class RateLimitError extends ApiError {
  readonly retryAfterMs?: number;
  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number }) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

export class InsufficientCreditsError extends ApiError {
  readonly required?: number;
  readonly balance?: number;
  constructor(message: string, details: ApiErrorDetails & { required?: number; balance?: number }) {
    super(message, details);
    this.required = details.required;
    this.balance = details.balance;
  }
}

/** The request never got an HTTP answer (refused, reset, DNS, TLS...). */
/** A connection error's advice; a paid call whose answer was lost words its own (cli/idempotency.ts: asking again plainly would pay twice). */
export const CONNECTION_HINT = 'Check the base URL and your network, then try again.';
/** The hints of a 5xx and a 429: "try again" is right for a call that pays nothing (a paid one says how to ask again without paying twice). */
export const SERVER_HINT = 'The service had a problem; try again later.';
export const RATE_LIMIT_HINT = 'The service is rate limiting; wait a little and try again.';

export class ConnectionError extends AssetgenError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'connection_error', cause, hint: CONNECTION_HINT });
  }
}

/**
 * An answer cut short after its headers said the call was charged, to a call without an
 * Idempotency-Key (a poll): asking again would be charged again, so the client does not retry it
 * on its own. `credits` is what the headers said (already reported to `onCredits`); a poll loop
 * (waitForRun, waitForVideo) asks again on its next poll, through its caller's budget.
 */
export class ChargedAnswerLostError extends ConnectionError {
  readonly credits: { charged: number; remaining?: number };
  constructor(message: string, credits: { charged: number; remaining?: number }, cause?: unknown) {
    super(message, cause);
    this.credits = credits;
  }
}

/** A connect/response timeout or an overall `--timeout` ran out. */
export class TimeoutError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'timeout', hint });
  }
}

/** The caller aborted (Ctrl-C); the server-side job, if any, is left alone. */
export class AbortedError extends AssetgenError {
  constructor(message = 'Interrupted.', hint?: string) {
    super(message, { code: 'interrupted', hint });
  }
}

/** A run or a video job finished in a failed state (or, code `job_empty`, "succeeded" with nothing to show). */
export class JobFailedError extends AssetgenError {
  readonly jobId: string;
  readonly refunded?: boolean;
  readonly record?: unknown;
  constructor(message: string, details: { jobId: string; refunded?: boolean; record?: unknown; hint?: string; code?: string }) {
    super(message, { code: details.code ?? 'job_failed', hint: details.hint });
    this.jobId = details.jobId;
    this.refunded = details.refunded;
    this.record = details.record;
  }
}

/** A streamed generation ended with an `error` event: the service failed to make the asset. */
export class GenerationFailedError extends AssetgenError {
  /** The event's data as received. */
  readonly data: unknown;
  /** `code`: the event's, as sent; one the client does not accept (serviceCode) is left out, and the message says so. */
  constructor(message: string, details: { code?: unknown; data: unknown }) {
    const { code, note } = serviceCode(details.code);
    super(withCodeNote(message, note), { code: code ?? 'generation_failed', hint: 'Try another prompt or agent.' });
    this.data = details.data;
  }
}

/**
 * The service answered 2xx with a body the client cannot make sense of (a protocol error). `raw` is
 * what it sent, bounded (see boundedRaw): as parsed when small, else a printable excerpt naming its size.
 */
export class UnexpectedResponseError extends AssetgenError {
  readonly raw: unknown;
  /**
   * What the service charged for the call whose answer this refuses, as far as its headers (and
   * those of the call's lost attempts) soundly said: already reported to `onCredits`, here for a
   * caller that counts per call (a build's cap). Set by the client on the error it made for this call.
   */
  charged?: number;
  constructor(message: string, raw: unknown, options: { code?: string; hint?: string; size?: SentSize } = {}) {
    super(message, { code: options.code ?? 'unexpected_response', hint: options.hint });
    this.raw = boundedRaw(raw, options.size);
  }
}

/**
 * The service sent more than the client reads (see limits.ts): an answer, a stream line or event,
 * a download or its compression ratio past its limit. Not retried: it would send the same again.
 */
export class ResponseTooLargeError extends UnexpectedResponseError {
  /** The limit that was passed, in bytes (or the ratio, for a compressed download). */
  readonly limit: number;
  constructor(message: string, limit: number) {
    super(message, undefined, {
      code: 'response_too_large',
      hint: 'The service sent more than assetgen accepts (see "Limits" in docs/cli.md).',
    });
    this.limit = limit;
  }
}

/** A local file problem: the output exists and `--force` was not given, or it cannot be written. */
export class OutputFileError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'output_file', hint });
  }
}

/**
 * The error codes of the service the client passes on (`code` in `--json` and MCP results, which
 * scripts match on): the shape docs/openapi.yaml gives them, lower-case words joined by `_` (digits
 * allowed), 64 characters at most. Anything else — longer, with control characters or spaces, not
 * a string — is not understood: left out, the error's own code used instead.
 */
const SERVICE_CODE = /^[a-z_][a-z0-9_]{0,63}$/;
/** How many characters of a code not understood are quoted. */
const CODE_SHOWN = 32;

/** A short quote of a value sent as a code: printable ASCII only, anything else escaped (`\u001b`), cut at CODE_SHOWN with its length stated. */
function codeQuote(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).slice(0, CODE_SHOWN);
  if (Array.isArray(value)) return 'a list';
  if (typeof value !== 'string') return isObject(value) ? 'an object' : typeof value;
  const escaped = JSON.stringify(value.slice(0, CODE_SHOWN)).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return value.length > CODE_SHOWN ? `${escaped.slice(0, -1)}…" (${value.length.toLocaleString('en-US')} characters)` : escaped;
}

/**
 * The service's `code` for an error, as sent: `code` when the client accepts it (SERVICE_CODE);
 * else `note`, what to add to the message (the code not understood, quoted short and escaped), so
 * that an odd code costs the reader neither the message nor a line of noise.
 */
export function serviceCode(value: unknown): { code?: string; note?: string } {
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'string' && SERVICE_CODE.test(value)) return { code: value };
  return { note: `error code not understood: ${codeQuote(value)}` };
}

/** `message` with the note of a code not understood (serviceCode), when there is one. */
const withCodeNote = (message: string, note: string | undefined): string => (note ? `${message} (${note})` : message);

/** A request id the service gives (a header, or the error body): printable ASCII without spaces, 1 to 128 characters; else left out. */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const requestIdIn = (value: unknown): string | undefined => {
  const id = str(value);
  return id !== undefined && REQUEST_ID.test(id) ? id : undefined;
};

function saneCredits(value: unknown): number | undefined {
  const figure = creditFigure(value);
  return typeof figure === 'number' ? figure : undefined;
}

export function requestIdOf(headers: HeaderMap, body?: unknown): string | undefined {
  const fromHeader = header(headers, 'x-request-id') ?? header(headers, 'request-id') ?? header(headers, 'x-correlation-id');
  if (fromHeader) return requestIdIn(fromHeader);
  if (isObject(body)) {
    const inner = isObject(body.error) ? body.error : body;
    return requestIdIn(inner.requestId ?? inner.request_id);
  }
  return undefined;
}

/**
 * Maps an error status and its body onto the error family (like `APIError.generate` in the OpenAI
 * SDK): 402 → InsufficientCreditsError, 401/403 → AuthenticationError, 429 → RateLimitError, …
 * `sent` is the body as read (its first bytes and size): a body that is not JSON is quoted from it.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: HeaderMap,
  sent?: { bytes: Uint8Array; size: SentSize },
): ApiError {
  const inner = isObject(body) && isObject(body.error) ? body.error : isObject(body) ? body : {};
  const found = str(inner.message) ?? (isObject(body) ? (str(body.message) ?? str(body.error) ?? str(body.detail)) : undefined);
  // A message is for a person, and the service's own words are untrusted: a bounded, printable excerpt.
  const serverMessage =
    found !== undefined ? excerpt(found) : typeof body === 'string' && body.trim() ? excerpt(sent?.bytes ?? body, sent?.size) : undefined;
  // A code the client does not accept is left out (the status's own code stands), and the message says so.
  const { code, note } = serviceCode(inner.code ?? (isObject(body) ? body.code : undefined));
  const details: ApiErrorDetails = { status, code, requestId: requestIdOf(headers, body), body };
  const message = withCodeNote(serverMessage ?? `The service answered HTTP ${status}.`, note);
  if (status === 402) {
    // Figures no account can hold are left out rather than printed as money.
    const required = saneCredits(inner.required ?? inner.cost);
    const balance = saneCredits(inner.balance ?? inner.remaining);
    const text =
      serverMessage ??
      (required !== undefined && balance !== undefined
        ? `Not enough credits: this needs ${required}, the balance is ${balance}.`
        : 'Not enough credits.');
    return new InsufficientCreditsError(withCodeNote(text, note), {
      ...details,
      code: details.code ?? 'insufficient_credits',
      required,
      balance,
      hint: 'Add credits to the account, then try again.',
    });
  }
  if (status === 401 || status === 403) {
    return new AuthenticationError(message, {
      ...details,
      hint: 'Check that the API key or session cookie is valid and has not been revoked.',
    });
  }
  if (status === 404) return new NotFoundError(message, details);
  if (status === 429) {
    const wait = retryAfterMs(headers) ?? (num(inner.retryAfterSeconds) !== undefined ? num(inner.retryAfterSeconds)! * 1000 : undefined);
    return new RateLimitError(message, {
      ...details,
      retryAfterMs: wait,
      hint: RATE_LIMIT_HINT,
    });
  }
  if (status === 400 || status === 409 || status === 413 || status === 422) return new InvalidRequestError(message, details);
  if (status >= 500) return new ServerError(message, { ...details, hint: SERVER_HINT });
  return new ApiError(message, details);
}
