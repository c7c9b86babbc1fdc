// The mock's own routes: generated files, and the admin API under /__mock. Neither is charged,
// authenticated or faulted: they are how tests look at and steer the mock.
import { ENDPOINTS, type EndpointName } from '../api/endpoints.js';
import { ADMIN_PATH, FILES_PATH } from './constants.js';
import { type MockRequest, type MockResponse } from './exchange.js';
import { renderVideo, VIDEO_CONTENT_TYPE } from './media/gif.js';
import { renderPng } from './media/png.js';
import { type Route } from './router.js';
import { FAULT_KINDS, type MockState, type FaultKind, type MockConfig } from './state.js';
import { Reject, apiError, json, newRequestId, readJsonObject, requiredString } from './responses.js';

type Answer = (request: MockRequest, params: Record<string, string>) => MockResponse | Promise<MockResponse>;

/** A route outside the service's layers: a `Reject` still becomes the service's error answer. */
function plain(method: Route['method'], path: string, answer: Answer): Route {
  return {
    method,
    path,
    async handle(request, params) {
      try {
        return await answer(request, params);
      } catch (error) {
        if (error instanceof Reject) return apiError(error.status, error.code, error.message, newRequestId(), error.extra);
        throw error;
      }
    },
  };
}

export function fileRoutes(state: MockState): Route[] {
  return [
    plain('GET', `${FILES_PATH}/:name`, (_request, { name = '' }) => {
      const requestId = newRequestId();
      const file = state.files.get(name);
      if (!file) return apiError(404, 'not_found', `No file "${name}".`, requestId);
      const bytes =
        file.kind === 'image'
          ? renderPng(file.agentId, file.prompt, file.variation)
          : renderVideo(file.agentId, file.prompt, undefined, file.variation);
      return {
        status: 200,
        headers: {
          'content-type': file.kind === 'image' ? 'image/png' : VIDEO_CONTENT_TYPE,
          'cache-control': 'public, max-age=31536000, immutable',
          'x-request-id': requestId,
        },
        body: bytes,
      };
    }),
  ];
}

export function adminRoutes(state: MockState, issueKey: () => string): Route[] {
  const ok = (body: unknown): MockResponse => json(200, body, newRequestId());
  return [
    plain('GET', `${ADMIN_PATH}/state`, () => {
      state.settleDueJobs();
      return ok({
        credits: state.credits,
        ledger: state.ledger,
        config: state.config,
        requests: state.requests,
        runs: [...state.runs.values()],
        videos: [...state.videos.values()],
        streams: Object.fromEntries(state.streams),
        held: state.held,
      });
    }),
    plain('POST', `${ADMIN_PATH}/reset`, () => {
      state.reset();
      return ok({ credits: state.credits });
    }),
    plain('POST', `${ADMIN_PATH}/config`, async (request) => {
      state.configure(validateConfig(await readJsonObject(request)));
      return ok(state.config);
    }),
    plain('POST', `${ADMIN_PATH}/keys`, () => ok({ apiKey: issueKey() })),
    plain('POST', `${ADMIN_PATH}/keys/revoke`, async (request) => {
      const body = await readJsonObject(request);
      if (!state.credentials.revokeApiKey(requiredString(body, 'apiKey'))) throw new Reject(404, 'not_found', 'No such key.');
      return ok({ revoked: true });
    }),
  ];
}

function validateConfig(body: Record<string, unknown>): Partial<MockConfig> {
  const patch: Partial<MockConfig> = {};
  const int = (field: string, min: number): number | undefined => {
    const value = body[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
      throw new Reject(400, 'invalid_request', `"${field}" must be a whole number ≥ ${min}.`, { field });
    return value;
  };
  const known = new Set([
    'credits',
    'videoOutcome',
    'videoSteps',
    'videoPollAfterMs',
    'videoRefundDelayMs',
    'streamStepMs',
    'latencyMs',
    'hold',
    'faults',
    'idempotency',
    'seed',
  ]);
  for (const field of Object.keys(body))
    if (!known.has(field)) throw new Reject(400, 'invalid_request', `Unknown setting "${field}".`, { field });
  patch.credits = int('credits', 0);
  patch.videoSteps = int('videoSteps', 1);
  patch.videoPollAfterMs = int('videoPollAfterMs', 0);
  patch.videoRefundDelayMs = int('videoRefundDelayMs', 0);
  patch.streamStepMs = int('streamStepMs', 0);
  patch.latencyMs = int('latencyMs', 0);
  if (body.hold !== undefined) {
    if (!Array.isArray(body.hold) || body.hold.some((name) => typeof name !== 'string' || !Object.hasOwn(ENDPOINTS, name)))
      throw new Reject(400, 'invalid_request', `"hold" must list some of ${Object.keys(ENDPOINTS).join(', ')}.`, { field: 'hold' });
    patch.hold = [...new Set(body.hold as EndpointName[])];
  }
  if (body.seed !== undefined) {
    if (typeof body.seed !== 'string' && typeof body.seed !== 'number')
      throw new Reject(400, 'invalid_request', '"seed" must be a string or a number.', { field: 'seed' });
    patch.seed = String(body.seed);
  }
  if (body.videoOutcome !== undefined) {
    if (!['succeed', 'fail', 'empty', 'random'].includes(body.videoOutcome as string))
      throw new Reject(400, 'invalid_request', '"videoOutcome" must be succeed, fail, empty or random.', { field: 'videoOutcome' });
    patch.videoOutcome = body.videoOutcome as MockConfig['videoOutcome'];
  }
  if (body.faults !== undefined) {
    const faults = body.faults as { rate?: unknown; kinds?: unknown };
    if (!faults || typeof faults !== 'object' || Array.isArray(faults))
      throw new Reject(400, 'invalid_request', '"faults" must be an object.', { field: 'faults' });
    const next: Partial<MockConfig['faults']> = {};
    if (faults.rate !== undefined) {
      if (typeof faults.rate !== 'number' || faults.rate < 0 || faults.rate > 1)
        throw new Reject(400, 'invalid_request', '"faults.rate" must be a number from 0 to 1.', { field: 'faults.rate' });
      next.rate = faults.rate;
    }
    if (faults.kinds !== undefined) {
      if (!Array.isArray(faults.kinds) || faults.kinds.some((kind) => !FAULT_KINDS.includes(kind as FaultKind))) {
        throw new Reject(400, 'invalid_request', `"faults.kinds" must list some of ${FAULT_KINDS.join(', ')}.`, { field: 'faults.kinds' });
      }
      next.kinds = faults.kinds as FaultKind[];
    }
    patch.faults = next as MockConfig['faults'];
  }
  if (body.idempotency !== undefined) patch.idempotency = idempotencyLimits(body.idempotency);
  for (const key of Object.keys(patch) as (keyof MockConfig)[]) if (patch[key] === undefined) delete patch[key];
  return patch;
}

/** `{"maxKeys"?, "maxAgeMs"?}`, each a whole number ≥ 1. */
function idempotencyLimits(value: unknown): MockConfig['idempotency'] {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Reject(400, 'invalid_request', '"idempotency" must be an object.', { field: 'idempotency' });
  const limits: Partial<MockConfig['idempotency']> = {};
  for (const [field, limit] of Object.entries(value)) {
    if (field !== 'maxKeys' && field !== 'maxAgeMs')
      throw new Reject(400, 'invalid_request', `Unknown setting "idempotency.${field}".`, { field: `idempotency.${field}` });
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
      throw new Reject(400, 'invalid_request', `"idempotency.${field}" must be a whole number ≥ 1.`, { field: `idempotency.${field}` });
    limits[field] = limit;
  }
  return limits as MockConfig['idempotency'];
}
