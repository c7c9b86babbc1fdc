// Server-sent events as an async iterable. Leaving the loop (break, return, throw) aborts the
// request; the body has no idle timeout, since a generation may think for a while between events.
import { redactUrl } from './redact.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  ApiError,
  AssetgenError,
  ConnectionError,
  GenerationFailedError,
  InvalidArgumentError,
  ResponseTooLargeError,
  UnexpectedResponseError,
} from './errors.js';
import { lostAttemptsInfo, type Call, type HttpClient, type OpenResponse } from './http.js';
import { excerpt } from './excerpt.js';
import { LIMITS, formatBytes, readLimited } from './limits.js';
import { StreamMeter } from './sse-meter.js';
import { abortError, RetryableFailure, transportError } from './failures.js';
import { normalizeGeneration, readCredits, type ResponseInfo } from './normalize.js';
import { header, isObject, num, str, type HeaderMap } from './values.js';
import type { StreamEvent } from './types.js';

/** Raw events of one response body, in order; a line or an event past its limit ends the stream. */
async function* messages(response: OpenResponse, what: string, signal: AbortSignal): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => queue.push(message) });
  const decoder = new TextDecoder();
  const meter = new StreamMeter();
  try {
    for await (const chunk of response.body) {
      const over = meter.feed(chunk as Uint8Array);
      if (over) {
        response.body.destroy();
        const limit = over === 'line' ? LIMITS.sseLineBytes : LIMITS.sseEventBytes;
        throw new ResponseTooLargeError(
          `${what}: an event-stream ${over} is longer than the ${formatBytes(limit)} assetgen reads; the stream was closed.`,
          limit,
        );
      }
      parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      while (queue.length) yield queue.shift()!;
    }
  } catch (error) {
    if (signal.aborted || error instanceof ResponseTooLargeError) throw error;
    throw transportError(error, `${what}: the stream broke off`);
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true }); // a last event without its blank line still counts
  while (queue.length) yield queue.shift()!;
}

function toEvent(message: EventSourceMessage, info: ResponseInfo): StreamEvent {
  let data: unknown = message.data;
  try {
    data = JSON.parse(message.data) as unknown;
  } catch {
    // not JSON: keep the text
  }
  const record = isObject(data) ? data : {};
  // Unnamed events may carry their kind inside the data.
  const type = message.event ?? str(record.type) ?? str(record.event) ?? 'message';
  switch (type) {
    case 'progress': {
      const event: Extract<StreamEvent, { type: 'progress' }> = { type, data };
      const progress = num(record.progress);
      if (progress !== undefined) event.progress = progress > 1 ? progress / 100 : progress;
      const text = str(record.message) ?? str(record.status);
      if (text) event.message = text;
      return event;
    }
    case 'result':
    case 'complete':
    case 'completed':
      return { type: 'result', generation: normalizeGeneration(data, info), data };
    case 'error': {
      // The service gave up on the generation: that is a failure to report, not an event to yield.
      const inner = isObject(record.error) ? record.error : record;
      const found = str(inner.message) ?? (typeof data === 'string' && data ? data : undefined);
      const message = found !== undefined ? excerpt(found) : 'The stream reported an error.';
      throw new GenerationFailedError(`The generation failed: ${message}`, { code: str(inner.code), data });
    }
    case 'start':
    case 'done':
      return { type, data };
    default:
      return { type: 'other', name: type, data };
  }
}

/**
 * Opens the stream, retrying (with the same idempotency key, so the charge is made once) until the
 * first event arrives; after that a broken stream is an error, since events would be repeated.
 */
export async function* streamEvents(http: HttpClient, call: Call, outerSignal: AbortSignal | undefined): AsyncGenerator<StreamEvent> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outerSignal?.reason);
  if (outerSignal?.aborted) onAbort();
  else outerSignal?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  const what = `${call.method} ${redactUrl(call.url)}`;
  let finished = false;
  /**
   * What the headers of attempts that broke off before their first event said they charged: the
   * call's own (the retry, with the same key, is a replay charged 0). Counted when the stream opens,
   * or reported as the call fails.
   */
  let chargedThenLost = 0;
  /** Attempts that got no answer before the one that opened (the service may have carried them out). */
  let attemptsLost = 0;
  const noteLost = (headers: HeaderMap): void => {
    attemptsLost += 1;
    chargedThenLost += readCredits(undefined, headers).charged ?? 0;
  };
  try {
    const opened = await http
      .retrying(signal, async (attempt) => {
        let response: OpenResponse;
        try {
          response = await http.once({ ...call, signal, accept: 'text/event-stream', unboundedBody: true }, attempt);
        } catch (error) {
          // A status answer (429, 5xx) is an answer; a request refused before sending was never out.
          const answered = error instanceof ApiError || (error instanceof RetryableFailure && error.error instanceof ApiError);
          if (!answered && !(error instanceof InvalidArgumentError)) attemptsLost += 1;
          throw error;
        }
        const info: ResponseInfo = {
          headers: response.headers,
          requestId: response.requestId,
          baseUrl: http.settings.baseUrl,
          // The rule JSON calls follow (a replay after a lost attempt: whose charge it restates).
          ...lostAttemptsInfo(call, attemptsLost, chargedThenLost),
        };
        const contentType = header(response.headers, 'content-type') ?? '';
        if (!/event-stream/i.test(contentType)) return { response, info, iterator: undefined, first: undefined };
        const iterator = messages(response, what, signal);
        let first: IteratorResult<EventSourceMessage>;
        try {
          first = await iterator.next();
        } catch (error) {
          noteLost(response.headers);
          if (signal.aborted) throw error;
          if (error instanceof ResponseTooLargeError) throw error; // the same again would be no better
          const failure = error instanceof AssetgenError ? error : transportError(error, what);
          throw new RetryableFailure(failure, 'the stream broke off before its first event');
        }
        if (first.done) {
          noteLost(response.headers);
          throw new RetryableFailure(new ConnectionError(`${what}: the stream ended before its first event.`), 'empty stream');
        }
        return { response, info, iterator, first: first.value };
      })
      .catch((error: unknown) => {
        if (chargedThenLost > 0) http.settings.hooks.onCredits?.({ charged: chargedThenLost });
        throw error;
      });

    if (!opened.iterator) {
      // A service that answers with a plain JSON generation instead of a stream.
      const text = await readLimited(opened.response.body, LIMITS.jsonBytes, what, num(header(opened.response.headers, 'content-length')));
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        throw new UnexpectedResponseError(
          `${what}: expected an event stream, got ${header(opened.response.headers, 'content-type') ?? 'no content type'}.`,
          text,
        );
      }
      const generation = normalizeGeneration(body, opened.info);
      if (chargedThenLost > 0) generation.credits.charged = (generation.credits.charged ?? 0) + chargedThenLost;
      http.settings.hooks.onCredits?.(generation.credits);
      yield { type: 'result', generation, data: body };
      finished = true;
      return;
    }

    // The stream's headers say what the call was charged: counted now, so a stream cut short later
    // (Ctrl-C, a dropped connection) still reports its charge; the result then adds only its balance.
    const opening = readCredits(undefined, opened.response.headers);
    // An attempt that broke off before its first event said what it charged: this call's own.
    if (chargedThenLost > 0) opening.charged = (opening.charged ?? 0) + chargedThenLost;
    const chargedAtOpen = opening.charged !== undefined && opening.charged > 0;
    if (chargedAtOpen) http.settings.hooks.onCredits?.(opening);
    for (let message: EventSourceMessage | undefined = opened.first; message; ) {
      const event = toEvent(message, opened.info);
      if (event.type === 'result') {
        finished = true;
        const { remaining } = event.generation.credits;
        http.settings.hooks.onCredits?.(chargedAtOpen ? (remaining !== undefined ? { remaining } : {}) : event.generation.credits);
      }
      yield event;
      if (event.type === 'done') return;
      const next = await opened.iterator.next();
      message = next.done ? undefined : next.value;
    }
    if (!finished) throw new ConnectionError(`${what}: the stream ended without a result.`);
  } catch (error) {
    if (signal.aborted && outerSignal?.aborted) throw abortError(outerSignal);
    throw error;
  } finally {
    outerSignal?.removeEventListener('abort', onAbort);
    // Leaving early (break/return/throw) must not leave the request running.
    controller.abort();
  }
}
