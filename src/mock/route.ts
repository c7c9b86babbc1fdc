// The public route wrapper every endpoint goes through: latency, faults, authentication,
// idempotency and the credit headers, so each endpoint's own code is only what it does.
import { createHash } from 'node:crypto';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { ENDPOINTS, type EndpointName } from '../api/endpoints.js';
import { type MockState, type FaultKind, type Principal } from './state.js';
import { Reject, apiError, authenticate, newRequestId } from './responses.js';

/** Header the node bridge reads to cut a response short (never sent to a client). */
export const TRUNCATE_MARKER = 'x-mock-fault';

// ── the public route wrapper: latency, faults, auth, idempotency, credits headers ─────────────────
export interface RouteContext {
  request: Request;
  params: Record<string, string>;
  principal: Principal;
  origin: string;
  requestId: string;
  /** Deducts credits or throws 402; records what this call charged. */
  charge(amount: number, reason: string): void;
}

type RouteBody = (ctx: RouteContext) => Promise<Response>;

function pickFault(state: MockState): FaultKind | undefined {
  const { rate, kinds } = state.config.faults;
  if (!(rate > 0) || kinds.length === 0 || state.random() >= rate) return undefined;
  return kinds[Math.floor(state.random() * kinds.length)];
}

export function route(state: MockState, name: EndpointName, body: RouteBody): HttpHandler {
  const spec = ENDPOINTS[name];
  const method = spec.method === 'GET' ? http.get : http.post;
  return method(`*${spec.path}`, async ({ request, params }) => {
    state.requests += 1;
    state.settleDueJobs();
    const requestId = newRequestId();
    if (state.config.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, state.config.latencyMs));
    // Faults that strike before the request is processed: nothing is charged.
    const fault = pickFault(state);
    if (fault === 'reset') return HttpResponse.error();
    if (fault === '500') return apiError(500, 'internal_error', 'Injected fault: internal error.', requestId);
    if (fault === '503') return apiError(503, 'unavailable', 'Injected fault: service unavailable.', requestId, {}, { 'retry-after': '0' });
    if (fault === '429')
      return apiError(
        429,
        'rate_limited',
        'Injected fault: too many requests.',
        requestId,
        { retryAfterSeconds: 1 },
        { 'retry-after': '1' },
      );

    let charged = 0;
    let idempotencyKey: string | undefined;
    let ownsMarker = false;
    let response: Response;
    try {
      const principal = authenticate(state, request, spec.auth);
      const rawKey = spec.method === 'POST' ? request.headers.get('idempotency-key') : null;
      let bodyHash = '';
      if (rawKey) {
        idempotencyKey = `${principal.id}:${rawKey}`;
        const text = await request.clone().text();
        bodyHash = createHash('sha256')
          .update(`${name}\u0000${JSON.stringify(params)}\u0000${text}`)
          .digest('hex');
        const seen = state.idempotency.get(idempotencyKey);
        if (seen === 'in-flight')
          throw new Reject(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still being processed.');
        if (seen) {
          if (seen.bodyHash !== bodyHash)
            throw new Reject(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
          const headers = new Headers(seen.headers);
          headers.set('idempotent-replayed', 'true');
          headers.set('x-request-id', requestId);
          headers.set('x-credits-charged', '0');
          headers.set('x-credits-remaining', String(state.credits));
          return withFault(new Response(seen.body, { status: seen.status, headers }), fault);
        }
        state.idempotency.set(idempotencyKey, 'in-flight');
        ownsMarker = true;
      }
      const origin = new URL(request.url).origin;
      response = await body({
        request,
        params: params as Record<string, string>,
        principal,
        origin,
        requestId,
        charge(amount, reason) {
          if (!state.charge(amount, reason)) {
            throw new Reject(402, 'insufficient_credits', `Not enough credits: this needs ${amount}, the balance is ${state.credits}.`, {
              required: amount,
              balance: state.credits,
            });
          }
          charged += amount;
        },
      });
      response.headers.set('x-request-id', requestId);
      response.headers.set('x-credits-charged', String(charged));
      response.headers.set('x-credits-remaining', String(state.credits));
      if (idempotencyKey) {
        const key = idempotencyKey;
        if (response.ok && response.headers.get('content-type')?.startsWith('application/json')) {
          const text = await response.clone().text();
          state.idempotency.set(key, { bodyHash, status: response.status, headers: [...response.headers], body: text });
        } else if (!response.ok) {
          state.idempotency.delete(key);
        } else {
          // Streams are stored once they complete (see the stream route); until then, in flight.
          streamCompletions.set(response, (text) =>
            state.idempotency.set(key, { bodyHash, status: response.status, headers: [...response.headers], body: text }),
          );
        }
      }
    } catch (error) {
      // Only the request that set the in-flight marker may clear it: a duplicate's 409 must not, or
      // a third request with the same key would run (and charge) again.
      if (ownsMarker && idempotencyKey && state.idempotency.get(idempotencyKey) === 'in-flight') state.idempotency.delete(idempotencyKey);
      if (!(error instanceof Reject)) throw error;
      const authenticated = error.status !== 401;
      response = apiError(error.status, error.code, error.message, requestId, error.extra, {
        ...error.headers,
        ...(authenticated ? { 'x-credits-charged': String(charged), 'x-credits-remaining': String(state.credits) } : {}),
      });
    }
    return withFault(response, fault);
  });
}

/** A fault that strikes after processing: the work is done (and charged), the answer is lost. */
function withFault(response: Response, fault: FaultKind | undefined): Response {
  if (fault === 'truncate') response.headers.set(TRUNCATE_MARKER, 'truncate');
  return response;
}

/** Streams whose full text should be stored for idempotent replay when they complete. */
export const streamCompletions = new WeakMap<Response, (text: string) => void>();
