// Every endpoint runs inside the same layers — hold, latency, faults, error answers, authentication,
// idempotency, credit headers — so each endpoint's own code is only what it does. A layer is a
// plain function of the call and the rest of the chain; `route` composes them once per endpoint.
import { hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENDPOINTS, type EndpointName } from '../api/endpoints.js';
import { isStream, type MockRequest, type MockResponse } from './exchange.js';
import { Reject, apiError, authenticate, newRequestId } from './responses.js';
import { type Route } from './router.js';
import { type FaultKind, type MockState, type Principal } from './state.js';

/** What an endpoint sees. */
export interface RouteContext {
  request: MockRequest;
  params: Record<string, string>;
  principal: Principal;
  origin: string;
  requestId: string;
  /** Deducts credits or throws 402; records what this call charged. */
  charge(amount: number, reason: string): void;
}

export type Endpoint = (ctx: RouteContext) => Promise<MockResponse>;

/** One call on its way through the layers. */
interface Call {
  readonly state: MockState;
  readonly name: EndpointName;
  readonly request: MockRequest;
  readonly params: Record<string, string>;
  readonly requestId: string;
  principal?: Principal;
  charged: number;
}

type Next = (call: Call) => Promise<MockResponse>;
type Layer = (call: Call, next: Next) => Promise<MockResponse>;

// Layers that have nothing to do pass the call straight on (no await): each await is a microtask
// per request, and the mock is also a load-test target.
const withLatency: Layer = (call, next) => {
  const { latencyMs } = call.state.config;
  return latencyMs > 0 ? sleep(latencyMs).then(() => next(call)) : next(call);
};

/** A held endpoint's calls wait here, first, until released (`hold` in /__mock/config). */
const withHold: Layer = (call, next) => {
  const held = call.state.heldUntilReleased(call.name);
  return held ? held.then(() => next(call)) : next(call);
};

function pickFault(state: MockState): FaultKind | undefined {
  const { rate, kinds } = state.config.faults;
  if (!(rate > 0) || kinds.length === 0 || state.random() >= rate) return undefined;
  return kinds[Math.floor(state.random() * kinds.length)];
}

/** Injected faults: most strike before the work (nothing charged); `truncate` after it (the answer is lost). */
const withFaults: Layer = (call, next) => {
  const fault = pickFault(call.state);
  if (fault === undefined) return next(call);
  const { requestId } = call;
  const answer = (response: MockResponse): Promise<MockResponse> => Promise.resolve(response);
  if (fault === 'reset') return answer({ status: 0, headers: {}, fault: 'reset' });
  if (fault === '500') return answer(apiError(500, 'internal_error', 'Injected fault: internal error.', requestId));
  if (fault === '503')
    return answer(apiError(503, 'unavailable', 'Injected fault: service unavailable.', requestId, {}, { 'retry-after': '0' }));
  if (fault === '429')
    return answer(
      apiError(429, 'rate_limited', 'Injected fault: too many requests.', requestId, { retryAfterSeconds: 1 }, { 'retry-after': '1' }),
    );
  return next(call).then((response) => {
    response.fault = 'truncate';
    return response;
  });
};

/** A `Reject` thrown anywhere below becomes the service's error answer (with the credit headers once authenticated). */
const withErrorAnswers: Layer = (call, next) => {
  const answer = (error: unknown): MockResponse => {
    if (!(error instanceof Reject)) throw error;
    const credits: Record<string, string> =
      error.status === 401 ? {} : { 'x-credits-charged': String(call.charged), 'x-credits-remaining': String(call.state.credits) };
    return apiError(error.status, error.code, error.message, call.requestId, error.extra, { ...error.headers, ...credits });
  };
  try {
    return next(call).catch(answer);
  } catch (error) {
    return Promise.resolve(answer(error));
  }
};

const withAuth: Layer = (call, next) => {
  call.principal = authenticate(call.state, call.request, ENDPOINTS[call.name].auth);
  return next(call);
};

/**
 * One Idempotency-Key, one execution: a duplicate while the first runs gets 409 (and must not clear
 * the first one's marker), a later one gets the stored answer, charged nothing. What is kept, and
 * for how long, is the store's affair (idempotency.ts).
 */
const withIdempotency: Layer = async (call, next) => {
  const rawKey = ENDPOINTS[call.name].method === 'POST' ? call.request.header('idempotency-key') : undefined;
  if (!rawKey) return next(call);
  const store = call.state.idempotency;
  const key = `${call.principal?.id ?? ''}:${rawKey}`;
  const fingerprint = hash('sha256', `${call.name}\u0000${JSON.stringify(call.params)}\u0000${await call.request.text()}`, 'base64');
  const seen = store.lookup(key);
  if (seen === 'in-flight')
    throw new Reject(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still being processed.');
  if (seen) {
    if (seen.fingerprint !== fingerprint)
      throw new Reject(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
    const headers: Record<string, string> = {};
    for (const [name, value] of seen.headers) headers[name] = value;
    headers['idempotent-replayed'] = 'true';
    headers['x-request-id'] = call.requestId;
    headers['x-credits-charged'] = '0';
    headers['x-credits-remaining'] = String(call.state.credits);
    return { status: seen.status, headers, body: seen.body };
  }
  store.begin(key);
  let response: MockResponse;
  try {
    response = await next(call);
  } catch (error) {
    store.abandon(key);
    throw error;
  }
  const keep = (body: string): void => store.store(key, fingerprint, response.status, response.headers, body);
  if (response.status >= 400) store.abandon(key);
  // A stream is stored once it ends (or is cut off); until then the key stays in flight.
  else if (isStream(response.body)) response.onStreamSettled = keep;
  else keep(typeof response.body === 'string' ? response.body : '');
  return response;
};

/** The endpoint itself, given `charge`; its answer carries the request id and what the call charged. */
function withCredits(endpoint: Endpoint): Next {
  return async (call) => {
    const { state } = call;
    const response = await endpoint({
      request: call.request,
      params: call.params,
      principal: call.principal as Principal,
      origin: call.request.origin,
      requestId: call.requestId,
      charge(amount, reason) {
        const key = ENDPOINTS[call.name].method === 'POST' ? call.request.header('idempotency-key') : undefined;
        if (!state.charge(amount, reason, key)) {
          throw new Reject(402, 'insufficient_credits', `Not enough credits: this needs ${amount}, the balance is ${state.credits}.`, {
            required: amount,
            balance: state.credits,
          });
        }
        call.charged += amount;
      },
    });
    response.headers['x-request-id'] = call.requestId;
    response.headers['x-credits-charged'] = String(call.charged);
    response.headers['x-credits-remaining'] = String(state.credits);
    return response;
  };
}

const LAYERS: Layer[] = [withHold, withLatency, withFaults, withErrorAnswers, withAuth, withIdempotency];

export function route(state: MockState, name: EndpointName, endpoint: Endpoint): Route {
  const chain = LAYERS.reduceRight<Next>((next, layer) => (call) => layer(call, next), withCredits(endpoint));
  const spec = ENDPOINTS[name];
  return {
    method: spec.method,
    path: spec.path,
    handle(request, params) {
      state.requests += 1;
      state.settleDueJobs();
      return chain({ state, name, request, params, requestId: newRequestId(), charged: 0 });
    },
  };
}
