// Calls over the transport (transport.ts): credentials, idempotency keys, retries with backoff,
// request ids, redacted traces, and HTTP errors mapped onto the error family. Everything above it
// speaks in records, never in sockets.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import {
  ApiError,
  AssetgenError,
  ChargedAnswerLostError,
  InvalidArgumentError,
  RateLimitError,
  UnexpectedResponseError,
  errorFromResponse,
  requestIdOf,
} from './errors.js';
import { SESSION_COOKIE_NAME } from '../api/endpoints.js';
import { RetryableFailure, abortError, throwIfAborted, pause, transportError } from './failures.js';
import { redactHeaders, redactUrl } from './redact.js';
import { formatBytes, LIMITS, readErrorBody, readLimited, type BodyHead } from './limits.js';
import { readCredits, soundChargeOf, type ResponseInfo } from './normalize.js';
import { header, num, retryAfterMs, type HeaderMap } from './values.js';
import { createTransport } from './transport.js';
import type { Transport, WireResponse } from './transport-records.js';
import type { ClientOptions } from './types.js';

export type Credential = 'apiKey' | 'session' | 'none';
export type ResponseBody = Readable;

export interface Call {
  method: 'GET' | 'POST';
  /** Absolute URL. */
  url: string;
  credential: Credential;
  /** Sent as JSON. */
  body?: unknown;
  /** Charged POSTs carry one; it makes their retries safe. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  accept?: string;
  /** Streams and downloads: no timeout between body chunks. */
  unboundedBody?: boolean;
  /** SignalOptions.mayRetry: asked before each retry of a JSON call. */
  mayRetry?: (unansweredAttempts: number, chargedThenLost: number) => boolean;
  /** SignalOptions.onUnanswered: told how many attempts of a failed JSON call got no answer. */
  onUnanswered?: (attempts: number) => void;
  /** The key was never sent before this call (the client made it, or the caller says so: CallOptions.keyIsNew). */
  keyIsNew?: boolean;
}

/**
 * Whether each attempt of this call that reaches the service is charged as a call of its own: one
 * without an Idempotency-Key (a poll, a list) made with the API key (service-api §5). A session's
 * calls are not charged, and a keyed call's retries are replays. So an attempt of such a call that
 * got no answer has a charge that is not known (Credits.unknownCharges), answered on a retry or not.
 */
export function chargesEveryAttempt(call: Pick<Call, 'idempotencyKey' | 'credential'>): boolean {
  return call.idempotencyKey === undefined && call.credential === 'apiKey';
}

/**
 * What an answer's credits are read with when attempts of its call got no whole answer before it
 * (`attemptsLost`; `chargedThenLost`, what their headers said they charged): one rule for JSON
 * calls and streams. A replay is this call's own charge only if no earlier call can have used the
 * key (`keyIsNew`); a key that may have been (the caller's, a resumed job's), its lost attempt's
 * charge unsaid, leaves one charge not known (a keyed call is charged once at most); each lost
 * attempt of a call charged per attempt (a poll, a list, with the API key) was a call of its own.
 */
export function lostAttemptsInfo(
  call: Pick<Call, 'idempotencyKey' | 'credential' | 'keyIsNew'>,
  attemptsLost: number,
  chargedThenLost = 0,
): Pick<ResponseInfo, 'earlierAttemptLost' | 'unknownCharges' | 'chargedThenLost'> {
  if (attemptsLost <= 0) return {};
  const info: Pick<ResponseInfo, 'earlierAttemptLost' | 'unknownCharges' | 'chargedThenLost'> = {};
  if (chargedThenLost > 0) info.chargedThenLost = chargedThenLost;
  if (call.idempotencyKey !== undefined && call.keyIsNew) info.earlierAttemptLost = true;
  else if (call.idempotencyKey !== undefined && chargedThenLost <= 0) info.unknownCharges = 1;
  if (chargesEveryAttempt(call)) info.unknownCharges = attemptsLost;
  return info;
}

export interface OpenResponse {
  status: number;
  headers: HeaderMap;
  body: ResponseBody;
  requestId?: string;
}

export interface JsonResponse {
  status: number;
  headers: HeaderMap;
  body: unknown;
  requestId?: string;
  /**
   * How many earlier attempts of this call got no whole answer (the connection dropped, the body was
   * cut short; absent when none): the service may have carried each of them out. For a keyed call, a
   * replayed answer to the retry may then be this call's own charge; an unkeyed one's attempts were
   * each a call of its own (`lostAttemptsInfo` says what they cost).
   */
  attemptsLost?: number;
  /**
   * What the headers of this keyed call's earlier attempts said they charged (not replays) before
   * their answers were lost: this call's own charge for certain, whatever the key's history (the
   * answer in hand is then a replay, charged 0). Absent when none said so.
   */
  chargedThenLost?: number;
}

/**
 * Worth another attempt: timeouts, 409 (the same idempotency key still in flight on the server),
 * rate limits and server errors.
 */
const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** `name=value` is sent as is; a bare token is the service's session cookie value. */
export function cookieHeader(sessionCookie: string): string {
  return sessionCookie.includes('=') ? sessionCookie : `${SESSION_COOKIE_NAME}=${sessionCookie}`;
}

export interface HttpSettings {
  baseUrl: string;
  apiKey?: string;
  sessionCookie?: string;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  maxRetryAfterMs: number;
  userAgent: string;
  hooks: Pick<ClientOptions, 'onRequest' | 'onResponse' | 'onRetry' | 'onCredits'>;
  dispatcher?: Dispatcher;
  connectionPool: 'auto' | 'off';
}

export class HttpClient {
  readonly settings: HttpSettings;
  /** Made on the first call: creating it may load undici (proxy or caller's dispatcher). */
  #transport?: Promise<Transport>;
  /** The transport once made: later calls use it without waiting a turn. */
  #ready?: Transport;
  #closed = false;
  /** The credential headers, worked out once. */
  readonly #authorization?: string;
  readonly #cookie?: string;

  constructor(settings: HttpSettings) {
    this.settings = settings;
    if (settings.apiKey) this.#authorization = `Bearer ${settings.apiKey}`;
    if (settings.sessionCookie) this.#cookie = cookieHeader(settings.sessionCookie);
  }

  #wire(): Promise<Transport> {
    this.#transport ??= createTransport({
      connectTimeoutMs: this.settings.connectTimeoutMs,
      dispatcher: this.settings.dispatcher,
      pooling: this.settings.connectionPool === 'off' ? 'never' : 'auto',
    }).then((transport) => (this.#ready = transport));
    return this.#transport;
  }

  has(credential: Credential): boolean {
    if (credential === 'apiKey') return Boolean(this.settings.apiKey);
    if (credential === 'session') return Boolean(this.settings.sessionCookie);
    return true;
  }

  url(path: string): string {
    return new URL(path, this.settings.baseUrl).href;
  }

  newIdempotencyKey(): string {
    return randomUUID();
  }

  /** Idempotent: closing twice (say, by a caller and by a cleanup hook) is fine. */
  async close(): Promise<void> {
    if (this.#closed || !this.#transport) return;
    this.#closed = true;
    await (await this.#transport).close();
  }

  /** Exponential backoff with full jitter: a random wait up to base·2^(retry−1), capped. */
  backoffMs(retry: number): number {
    const ceiling = Math.min(this.settings.retryMaxDelayMs, this.settings.retryBaseDelayMs * 2 ** (retry - 1));
    return Math.round(Math.random() * ceiling);
  }

  /**
   * Runs `attempt` until it succeeds, throws a non-retryable error, or retries run out. Only
   * RetryableFailure is retried; the wait honours the server's Retry-After up to the cap.
   */
  async retrying<T>(
    signal: AbortSignal | undefined,
    attempt: (n: number) => Promise<T>,
    retries = this.settings.maxRetries,
    mayRetry: () => boolean = () => true,
  ): Promise<T> {
    for (let n = 1; ; n++) {
      throwIfAborted(signal);
      try {
        return await attempt(n);
      } catch (error) {
        if (signal?.aborted) throw abortError(signal);
        if (!(error instanceof RetryableFailure)) throw error;
        if (n > retries || !mayRetry()) throw error.error;
        // A Retry-After beyond the cap is not worth waiting for here: our own backoff decides.
        const hinted =
          error.retryAfterMs !== undefined && error.retryAfterMs <= this.settings.maxRetryAfterMs ? error.retryAfterMs : undefined;
        const delayMs = hinted ?? this.backoffMs(n);
        this.settings.hooks.onRetry?.({ attempt: n + 1, delayMs, reason: error.reason });
        await pause(delayMs, signal);
      }
    }
  }

  #headers(call: Call): Record<string, string> {
    const headers: Record<string, string> = {
      'user-agent': this.settings.userAgent,
      accept: call.accept ?? 'application/json',
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
    if (call.credential === 'apiKey' && this.#authorization) headers.authorization = this.#authorization;
    if (call.credential === 'session' && this.#cookie) headers.cookie = this.#cookie;
    return headers;
  }

  /**
   * One attempt: sends the request and returns the response once its headers are in. A 2xx or 3xx
   * comes back with its body unread; an error status is read, mapped and thrown (as
   * RetryableFailure when a retry may help).
   */
  async once(call: Call, attempt: number): Promise<OpenResponse> {
    const sending = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (sending !== undefined && Buffer.byteLength(sending) > LIMITS.requestBytes)
      throw new InvalidArgumentError(
        `${describe(call)}: the request is ${formatBytes(Buffer.byteLength(sending))}, past the ${formatBytes(LIMITS.requestBytes)} assetgen sends (a prompt that long is not one a service takes); nothing was sent.`,
        'Shorten the prompt.',
      );
    const headers = this.#headers(call);
    const hooks = this.settings.hooks;
    hooks.onRequest?.({ method: call.method, url: redactUrl(call.url), headers: redactHeaders(headers), attempt });
    const started = hooks.onResponse ? performance.now() : 0;
    let response: WireResponse;
    try {
      const transport = this.#ready ?? (await this.#wire());
      response = await transport.send({
        method: call.method,
        url: call.url,
        headers,
        body: sending,
        signal: call.signal,
        headersTimeoutMs: this.settings.responseTimeoutMs,
        bodyTimeoutMs: call.unboundedBody ? 0 : this.settings.responseTimeoutMs,
      });
    } catch (error) {
      if (call.signal?.aborted) throw abortError(call.signal);
      const failure = transportError(error, describe(call));
      throw new RetryableFailure(failure, failure.message);
    }
    const responseHeaders = response.headers;
    const requestId = requestIdOf(responseHeaders);
    hooks.onResponse?.({
      method: call.method,
      url: redactUrl(call.url),
      status: response.status,
      requestId,
      durationMs: Math.round(performance.now() - started),
      headers: redactHeaders(responseHeaders),
    });
    if (response.status < 400) return { status: response.status, headers: responseHeaders, body: response.body, requestId };

    let body: unknown;
    let sent: BodyHead | undefined;
    // An error body is read even on unbounded calls (streams): do not let a stalled one hang.
    const deadline = setTimeout(
      () => response.body.destroy(new Error('timed out reading the error body')),
      this.settings.responseTimeoutMs,
    );
    try {
      sent = await readErrorBody(response.body, responseHeaders, LIMITS.errorBodyBytes);
      const text = sent.bytes.toString('utf8');
      body = parseJson(text) ?? text;
    } catch {
      if (call.signal?.aborted) throw abortError(call.signal);
      body = undefined; // a cut error body still has a status worth reporting
    } finally {
      clearTimeout(deadline);
    }
    const error = errorFromResponse(response.status, body, responseHeaders, sent);
    if (RETRYABLE_STATUS(response.status)) {
      const wait = error instanceof RateLimitError ? error.retryAfterMs : retryAfterMs(responseHeaders);
      throw new RetryableFailure(error, `HTTP ${response.status}${error.requestId ? ` (request ${error.requestId})` : ''}`, wait);
    }
    throw error;
  }

  /** A JSON call with retries. A 2xx body that is cut short is retried like a network error. */
  async json(call: Call): Promise<JsonResponse> {
    /** What the headers of keyed attempts whose answers were then lost said they charged (each exchange's own charge). */
    const lostCharges = { charged: 0, remaining: undefined as number | undefined };
    const what = (): string => describe(call);
    const attempts = { unanswered: 0 };
    try {
      return await this.#jsonAttempts(call, what, lostCharges, attempts);
    } catch (error) {
      const failure = this.#chargedThenFailed(call, error, lostCharges);
      // A ChargedAnswerLostError's own attempt was counted from its headers.
      const unknown = attempts.unanswered - (failure instanceof ChargedAnswerLostError ? 1 : 0);
      if (unknown > 0) {
        call.onUnanswered?.(unknown);
        // Said where every charge is said (the answered case's comes with its answer, client.ts),
        // so every front end's tally counts them without a rule of its own.
        if (chargesEveryAttempt(call)) this.settings.hooks.onCredits?.({ unknownCharges: unknown });
      }
      throw failure;
    }
  }

  /**
   * A keyed call (a paid submission) that failed after one of its attempts was charged and its
   * answer then lost: each retry was a replay, so the charge was never reported. It is now (to
   * `onCredits`, once) and the failure says so (ChargedAnswerLostError): a build counts it against
   * its cap, and its summary and `--json` against the ledger.
   */
  #chargedThenFailed(call: Call, error: unknown, lost: { charged: number; remaining: number | undefined }): unknown {
    if (
      call.idempotencyKey === undefined ||
      lost.charged <= 0 ||
      !(error instanceof AssetgenError) ||
      error instanceof ChargedAnswerLostError
    )
      return error;
    const charge = { charged: lost.charged, ...(lost.remaining !== undefined ? { remaining: lost.remaining } : {}) };
    this.settings.hooks.onCredits?.(charge);
    // Stopped (Ctrl-C, --timeout): the stop is what ends the command; the charge is counted all the same.
    if (call.signal?.aborted) return error;
    return new ChargedAnswerLostError(
      `${error.message} The service charged ${lost.charged} credit${lost.charged === 1 ? '' : 's'} for it before its answer was lost.`,
      charge,
      error,
    );
  }

  async #jsonAttempts(
    call: Call,
    what: () => string,
    lostCharges: { charged: number; remaining: number | undefined },
    attempts: { unanswered: number },
  ): Promise<JsonResponse> {
    const noteLostCharge = (headers: HeaderMap): void => {
      if (call.idempotencyKey === undefined) return;
      const credits = readCredits(undefined, headers);
      lostCharges.charged += credits.charged ?? 0;
      if (credits.remaining !== undefined) lostCharges.remaining = credits.remaining;
    };
    /** The attempt's whole answer is in: it is not one of the unanswered (JsonResponse.attemptsLost). */
    const answered = (): void => {
      attempts.unanswered -= 1;
    };
    /** A whole answer, with the attempts before it that got none (and what their headers said they charged). */
    const withLost = (answer: JsonResponse): JsonResponse => {
      answered();
      if (attempts.unanswered > 0) answer.attemptsLost = attempts.unanswered;
      if (lostCharges.charged > 0) answer.chargedThenLost = lostCharges.charged;
      return answer;
    };
    const mayRetry = call.mayRetry && ((): boolean => call.mayRetry!(attempts.unanswered, lostCharges.charged));
    return this.retrying(
      call.signal,
      async (attempt) => {
        // Counted as unanswered from the moment it may be sent until a whole answer is in: one stopped
        // while out, cut short, or refused is one whose outcome (and charge) is not known.
        attempts.unanswered += 1;
        let response: OpenResponse;
        try {
          response = await this.once(call, attempt);
        } catch (error) {
          // A status answer (409, 429, 5xx, 4xx) is an answer; a request refused before sending was never out.
          const statusAnswer = error instanceof ApiError || (error instanceof RetryableFailure && error.error instanceof ApiError);
          if (statusAnswer || error instanceof InvalidArgumentError) answered();
          throw error;
        }
        let text: string;
        try {
          text = await readLimited(response.body, LIMITS.jsonBytes, what, num(header(response.headers, 'content-length')));
        } catch (error) {
          if (call.signal?.aborted) {
            // Stopped after the headers: what they said this attempt charged is counted (json()).
            noteLostCharge(response.headers);
            throw abortError(call.signal);
          }
          // Too large, or longer than announced: the same answer again would be no better.
          if (error instanceof AssetgenError) throw error;
          const failure = transportError(error, `${what()}: reading the response`);
          this.#refuseChargedRetry(call, response.headers, failure);
          noteLostCharge(response.headers);
          throw new RetryableFailure(failure, failure.message);
        }
        if (response.status >= 300) {
          throw this.refusedAnswer(
            new UnexpectedResponseError(
              `${what()}: unexpected redirect (HTTP ${response.status}) to ${header(response.headers, 'location') ?? 'nowhere'}.`,
              text,
            ),
            response.headers,
          );
        }
        if (text.trim() === '')
          return withLost({ status: response.status, headers: response.headers, body: null, requestId: response.requestId });
        const body = parseJson(text);
        if (body === undefined) {
          const size = num(header(response.headers, 'content-length'));
          const failure = new UnexpectedResponseError(`${what()}: the response is not valid JSON.`, text, {
            ...(size !== undefined ? { size: { bytes: size } } : {}),
          });
          // Declared JSON that does not parse was most likely cut short in transit.
          if (/json/i.test(header(response.headers, 'content-type') ?? '')) {
            this.#refuseChargedRetry(call, response.headers, failure);
            noteLostCharge(response.headers);
            throw new RetryableFailure(failure, 'incomplete JSON response');
          }
          throw this.refusedAnswer(failure, response.headers);
        }
        return withLost({
          status: response.status,
          headers: response.headers,
          body,
          requestId: response.requestId ?? requestIdOf(response.headers, body),
        });
      },
      undefined,
      mayRetry,
    );
  }

  /**
   * An answer refused (not JSON, a redirect, a figure no account holds…) whose headers said,
   * soundly, what this exchange charged — plus `chargedThenLost`, what the call's lost attempts'
   * headers said, when nothing else reports it (an answer the transport returned whole): the
   * service took that money whatever assetgen makes of the answer, so it is reported to
   * `onCredits` and written on the refusal (`charged`) for a caller that counts per call. (A refusal
   * inside the transport leaves the lost attempts' charge to json(): ChargedAnswerLostError.)
   */
  refusedAnswer<E extends UnexpectedResponseError>(error: E, headers: HeaderMap, chargedThenLost = 0): E {
    const charged = (soundChargeOf(headers) ?? 0) + chargedThenLost;
    if (charged > 0 && error.charged === undefined) {
      error.charged = charged;
      this.settings.hooks.onCredits?.({ charged });
    }
    return error;
  }

  /**
   * An answer lost after its headers, to a call without an Idempotency-Key (a poll), whose headers
   * say it was charged: the service did the work and took the credits, and a retry would be a new
   * call, charged again. So the charge is reported, and the call fails instead of retrying: a
   * keyed call's retry is a replay, charged nothing, and is left to the retries.
   */
  #refuseChargedRetry(call: Call, headers: HeaderMap, failure: AssetgenError): void {
    if (call.idempotencyKey !== undefined) return;
    const credits = readCredits(undefined, headers);
    if (!credits.charged) return;
    this.settings.hooks.onCredits?.(credits);
    const charge = { charged: credits.charged, ...(credits.remaining !== undefined ? { remaining: credits.remaining } : {}) };
    throw new ChargedAnswerLostError(
      `${failure.message} The service charged ${credits.charged} credit${credits.charged === 1 ? '' : 's'} for it; assetgen did not ask again on its own.`,
      charge,
      failure,
    );
  }
}

/** `POST https://…/api/v1/generate`: a call as errors name it, secrets left out (worked out only for an error). */
function describe(call: Call): string {
  return `${call.method} ${redactUrl(call.url)}`;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
