// The mock API as msw request handlers over standard Request/Response. The same list answers real
// sockets (server.ts, through msw's getResponse) and in-process fetches (msw's setupServer).
import { createHash, randomBytes } from 'node:crypto';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { ENDPOINTS, type AuthKind, type EndpointName } from '../api/endpoints.js';
import { ADMIN_PATH, FILES_PATH, MAX_BODY_BYTES, MAX_PROMPT_LENGTH, SESSION_COOKIE_NAME, type ErrorCode } from './constants.js';
import { renderPng, renderVideo, VIDEO_CONTENT_TYPE } from './media.js';
import { callPrice, PRICES } from './prices.js';
import { DEFAULT_VIDEO_AGENT } from './seed.js';
import { FAULT_KINDS, type MockState, type FaultKind, type MockConfig, type Principal, type RunRecord, type VideoRecord } from './state.js';

/** Header the node bridge reads to cut a response short (never sent to a client). */
export const TRUNCATE_MARKER = 'x-mock-fault';

const ASPECT_RATIOS = ['16:9', '1:1', '9:16'] as const;

// ── responses ────────────────────────────────────────────────────────────────────────────────────
const newRequestId = (): string => `req_${randomBytes(8).toString('hex')}`;

function json(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): Response {
  return HttpResponse.json(body as never, { status, headers: { 'x-request-id': requestId, ...headers } });
}

function apiError(
  status: number,
  code: ErrorCode,
  message: string,
  requestId: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return json(status, { error: { code, message, requestId, ...extra } }, requestId, headers);
}

/** A validation failure, thrown from deep inside a handler and turned into a 4xx by the wrapper. */
class Reject extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

// ── request parsing ──────────────────────────────────────────────────────────────────────────────
async function readJsonObject(request: Request, { optional = false } = {}): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new Reject(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, { limit: MAX_BODY_BYTES });
  if (!text.trim()) {
    if (optional) return {};
    throw new Reject(400, 'invalid_request', 'The request body is empty; send a JSON object.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Reject(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Reject(400, 'invalid_request', 'The request body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw new Reject(400, 'invalid_request', `Missing field "${field}".`, { field });
  if (typeof value !== 'string') throw new Reject(400, 'invalid_request', `Field "${field}" must be a string.`, { field });
  if (!value.trim()) throw new Reject(400, 'invalid_request', `Field "${field}" must not be empty.`, { field });
  return value;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  return body[field] === undefined || body[field] === null ? undefined : requiredString(body, field);
}

function prompt(body: Record<string, unknown>): string {
  const value = requiredString(body, 'prompt');
  if (value.length > MAX_PROMPT_LENGTH)
    throw new Reject(400, 'prompt_too_long', `The prompt is longer than ${MAX_PROMPT_LENGTH} characters.`, { limit: MAX_PROMPT_LENGTH });
  return value;
}

function cookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The credentials of a request, checked against what the endpoint accepts. */
function authenticate(state: MockState, request: Request, accepted: readonly AuthKind[]): Principal {
  const authorization = request.headers.get('authorization');
  const session = cookie(request, SESSION_COOKIE_NAME);
  if (authorization !== null && accepted.includes('apiKey')) {
    const match = /^Bearer (\S+)$/.exec(authorization.trim());
    if (!match) throw new Reject(401, 'invalid_credentials', 'The Authorization header must be "Bearer <API key>".');
    const result = state.checkApiKey(match[1]);
    if (result === 'malformed') throw new Reject(401, 'invalid_credentials', 'That is not an API key of this service.');
    if (result === 'unknown') throw new Reject(401, 'invalid_credentials', 'Unknown API key.');
    if (result === 'revoked') throw new Reject(401, 'invalid_credentials', 'This API key has been revoked.');
    return result;
  }
  if (session !== undefined && accepted.includes('session')) {
    const result = state.checkSession(session);
    if (result === 'unknown') throw new Reject(401, 'invalid_credentials', 'Unknown or expired session.');
    return result;
  }
  if (!accepted.includes('apiKey') && authorization !== null) {
    throw new Reject(
      401,
      'session_required',
      `This endpoint needs a session cookie (${SESSION_COOKIE_NAME}); an API key is not accepted here.`,
    );
  }
  if (!accepted.includes('session'))
    throw new Reject(401, 'unauthorized', 'Send an API key (Authorization: Bearer <key>); a session cookie is not accepted here.');
  throw new Reject(
    401,
    'unauthorized',
    accepted.includes('apiKey')
      ? 'Send an API key (Authorization: Bearer <key>) or a session cookie.'
      : `Send the session cookie (${SESSION_COOKIE_NAME}).`,
  );
}

// ── records as the API shows them ────────────────────────────────────────────────────────────────
const fileUrl = (origin: string, name: string): string => `${origin}${FILES_PATH}/${encodeURIComponent(name)}`;

function generationRecord(
  origin: string,
  id: string,
  agentId: string,
  promptText: string,
  credits: { charged: number; remaining: number },
) {
  const bytes = renderPng(agentId, promptText);
  return {
    id,
    object: 'generation',
    agentId,
    prompt: promptText,
    status: 'succeeded',
    output: { url: fileUrl(origin, `${id}.png`), contentType: 'image/png', width: 128, height: 128, bytes: bytes.length },
    credits,
    createdAt: new Date().toISOString(),
  };
}

function runRecord(origin: string, run: RunRecord) {
  const current = run.status === 'succeeded' ? null : run.nodes[run.completedNodes];
  const withUrl = (output: RunRecord['nodes'][number]['output']) =>
    output && 'url' in output ? { url: fileUrl(origin, output.url), contentType: output.contentType } : output;
  return {
    id: run.id,
    object: 'run',
    workflowId: run.workflowId,
    status: run.status,
    totalNodes: run.nodes.length,
    completedNodes: run.completedNodes,
    currentNode: current ? { id: current.id, label: current.label } : null,
    nodes: run.nodes.map((node) => ({
      id: node.id,
      type: node.type,
      label: node.label,
      status: node.status,
      ...(node.output ? { output: withUrl(node.output) } : {}),
    })),
    outputs: run.nodes.flatMap((node) =>
      node.output && 'url' in node.output
        ? [{ nodeId: node.id, url: fileUrl(origin, node.output.url), contentType: node.output.contentType }]
        : [],
    ),
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

function videoRecord(state: MockState, origin: string, video: VideoRecord, credits: { charged: number; remaining: number }) {
  const progress = video.status === 'succeeded' || video.status === 'failed' ? 1 : Math.min(0.95, video.polls / video.steps);
  return {
    id: video.id,
    object: 'video_job',
    status: video.status,
    agentId: video.agentId,
    prompt: video.prompt,
    durationSeconds: video.durationSeconds,
    aspectRatio: video.aspectRatio,
    progress,
    output: video.fileName ? { url: fileUrl(origin, video.fileName), contentType: VIDEO_CONTENT_TYPE } : null,
    error: video.error,
    refunded: video.refund !== null,
    refund: video.refund,
    credits,
    pollAfterMs: state.config.videoPollAfterMs,
    createdAt: video.createdAt,
    updatedAt: video.updatedAt,
  };
}

// ── the public route wrapper: latency, faults, auth, idempotency, credits headers ─────────────────
interface RouteContext {
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

function route(state: MockState, name: EndpointName, body: RouteBody): HttpHandler {
  const spec = ENDPOINTS[name];
  const method = spec.method === 'GET' ? http.get : http.post;
  return method(`*${spec.path}`, async ({ request, params }) => {
    state.requests += 1;
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
      if (idempotencyKey && state.idempotency.get(idempotencyKey) === 'in-flight') state.idempotency.delete(idempotencyKey);
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
const streamCompletions = new WeakMap<Response, (text: string) => void>();

// ── the routes ───────────────────────────────────────────────────────────────────────────────────
function imageAgent(state: MockState, agentId: string) {
  const agent = state.agent(agentId);
  if (!agent)
    throw new Reject(404, 'unknown_agent', `Unknown agent "${agentId}". Known agents: ${state.agents.map((a) => a.id).join(', ')}.`, {
      agentId,
    });
  if (agent.kind !== 'image') throw new Reject(400, 'wrong_agent_kind', `Agent "${agentId}" makes ${agent.kind}, not images.`, { agentId });
  return agent;
}

function generateImage(state: MockState, ctx: RouteContext, body: Record<string, unknown>, via: string) {
  const agentId = requiredString(body, 'agentId');
  const promptText = prompt(body);
  imageAgent(state, agentId);
  const id = state.newId('gen');
  ctx.charge(PRICES.generation, `${via} ${id}`);
  state.addFile(`${id}.png`, { kind: 'image', agentId, prompt: promptText });
  return generationRecord(ctx.origin, id, agentId, promptText, { charged: PRICES.generation, remaining: state.credits });
}

function streamRoute(state: MockState): HttpHandler {
  return route(state, 'stream', async (ctx) => {
    const body = await readJsonObject(ctx.request);
    const record = generateImage(state, ctx, body, 'stream');
    const steps = ['Reading the prompt', 'Sketching the silhouette', 'Picking a palette', 'Shading', 'Polishing pixels'];
    const events: [string, unknown][] = [
      ['start', { id: record.id, agentId: record.agentId, prompt: record.prompt }],
      ...steps.map((message, i): [string, unknown] => ['progress', { progress: (i + 1) / (steps.length + 1), message }]),
      ['result', record],
      ['done', {}],
    ];
    state.streams.set(record.id, { status: 'streaming', events: 0 });
    const encoder = new TextEncoder();
    const frames = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    let timer: NodeJS.Timeout | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        let index = 0;
        const next = (): void => {
          controller.enqueue(encoder.encode(frames[index]));
          state.streams.set(record.id, { status: 'streaming', events: index + 1 });
          index += 1;
          if (index === events.length) {
            state.streams.set(record.id, { status: 'completed', events: index });
            streamCompletions.get(response)?.(frames.join(''));
            controller.close();
            return;
          }
          timer = setTimeout(next, state.config.streamStepMs);
        };
        next();
      },
      cancel() {
        // The client went away: stop producing events.
        clearTimeout(timer);
        const current = state.streams.get(record.id);
        if (current?.status === 'streaming') state.streams.set(record.id, { ...current, status: 'cancelled' });
        // The generation is made and charged: a retry with the same Idempotency-Key replays the
        // whole stream (as after a truncated answer) instead of finding the key in flight forever.
        streamCompletions.get(response)?.(frames.join(''));
      },
    });
    const response = new Response(stream, {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' },
    });
    return response;
  });
}

function publicHandlers(state: MockState): HttpHandler[] {
  return [
    route(state, 'generate', async (ctx) =>
      json(201, generateImage(state, ctx, await readJsonObject(ctx.request), 'generate'), ctx.requestId),
    ),
    route(state, 'sessionGenerate', async (ctx) =>
      json(201, generateImage(state, ctx, await readJsonObject(ctx.request), 'session generate'), ctx.requestId),
    ),
    streamRoute(state),
    route(state, 'listAgents', async (ctx) => {
      ctx.charge(callPrice(ctx.principal.kind), 'list agents');
      return json(200, { agents: state.agents }, ctx.requestId);
    }),
    route(state, 'listWorkflows', async (ctx) => {
      ctx.charge(callPrice(ctx.principal.kind), 'list workflows');
      const workflows = state.workflows.map(({ agentId: _agent, ...workflow }) => ({
        ...workflow,
        overridableNodes: workflow.nodes.filter((node) => node.overridable).map((node) => node.id),
      }));
      return json(200, { workflows }, ctx.requestId);
    }),
    route(state, 'runWorkflow', async (ctx) => {
      const workflow = state.workflow(ctx.params.id ?? '');
      if (!workflow) throw new Reject(404, 'workflow_not_found', `No workflow "${ctx.params.id}".`);
      const body = await readJsonObject(ctx.request, { optional: true });
      const overrides = body.overrides ?? {};
      if (!overrides || typeof overrides !== 'object' || Array.isArray(overrides))
        throw new Reject(400, 'invalid_request', 'Field "overrides" must be an object of node id → prompt.', { field: 'overrides' });
      for (const [nodeId, value] of Object.entries(overrides)) {
        const node = workflow.nodes.find((n) => n.id === nodeId);
        if (!node) throw new Reject(400, 'invalid_override', `Workflow ${workflow.id} has no node "${nodeId}".`, { node: nodeId });
        if (!node.overridable)
          throw new Reject(400, 'invalid_override', `Node "${nodeId}" of ${workflow.id} is not overridable.`, { node: nodeId });
        if (typeof value !== 'string' || !value.trim())
          throw new Reject(400, 'invalid_override', `The override of node "${nodeId}" must be a non-empty string.`, { node: nodeId });
        if (value.length > MAX_PROMPT_LENGTH)
          throw new Reject(400, 'prompt_too_long', `The override of node "${nodeId}" is longer than ${MAX_PROMPT_LENGTH} characters.`, {
            node: nodeId,
          });
      }
      const runId = state.newId('run');
      // Charge, then create: both happen in this one synchronous step, or the charge throws 402.
      ctx.charge(PRICES.runPerNode * workflow.nodes.length, `run ${runId} (${workflow.id})`);
      const run = state.createRun(runId, workflow, overrides as Record<string, string>);
      return json(201, runRecord(ctx.origin, run), ctx.requestId);
    }),
    route(state, 'getRun', async (ctx) => {
      const run = state.runs.get(ctx.params.runId ?? '');
      if (!run) throw new Reject(404, 'run_not_found', `No run "${ctx.params.runId}".`);
      ctx.charge(callPrice(ctx.principal.kind), `poll ${run.id}`);
      state.advanceRun(run);
      return json(200, runRecord(ctx.origin, run), ctx.requestId);
    }),
    route(state, 'createVideo', async (ctx) => {
      const body = await readJsonObject(ctx.request);
      const promptText = prompt(body);
      const agentId = optionalString(body, 'agentId') ?? DEFAULT_VIDEO_AGENT;
      const agent = state.agent(agentId);
      if (!agent)
        throw new Reject(404, 'unknown_agent', `Unknown agent "${agentId}". Known agents: ${state.agents.map((a) => a.id).join(', ')}.`, {
          agentId,
        });
      if (agent.kind !== 'video') throw new Reject(400, 'wrong_agent_kind', `Agent "${agentId}" makes images, not video.`, { agentId });
      const duration = body.durationSeconds ?? 4;
      if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1 || duration > 10) {
        throw new Reject(400, 'invalid_request', 'Field "durationSeconds" must be a whole number from 1 to 10.', {
          field: 'durationSeconds',
        });
      }
      const aspectRatio = body.aspectRatio ?? '16:9';
      if (typeof aspectRatio !== 'string' || !(ASPECT_RATIOS as readonly string[]).includes(aspectRatio)) {
        throw new Reject(400, 'invalid_request', `Field "aspectRatio" must be one of ${ASPECT_RATIOS.join(', ')}.`, {
          field: 'aspectRatio',
        });
      }
      // Charge and create together: either both happen or neither does.
      const videoId = state.newId('vid');
      ctx.charge(PRICES.video, `video ${videoId}`);
      const video = state.createVideo({
        id: videoId,
        agentId,
        prompt: promptText,
        durationSeconds: duration,
        aspectRatio,
        charged: PRICES.video,
      });
      return json(
        202,
        videoRecord(state, ctx.origin, video, { charged: PRICES.video, remaining: state.credits }),
        ctx.requestId,
        retryAfter(state),
      );
    }),
    route(state, 'getVideo', async (ctx) => {
      const video = state.videos.get(ctx.params.id ?? '');
      if (!video) throw new Reject(404, 'video_not_found', `No video job "${ctx.params.id}".`);
      const price = callPrice(ctx.principal.kind);
      ctx.charge(price, `poll ${video.id}`);
      state.advanceVideo(video);
      const finished = video.status === 'succeeded' || video.status === 'failed';
      return json(
        200,
        videoRecord(state, ctx.origin, video, { charged: price, remaining: state.credits }),
        ctx.requestId,
        finished ? {} : retryAfter(state),
      );
    }),
  ];
}

function retryAfter(state: MockState): Record<string, string> {
  return { 'retry-after': String(Math.ceil(state.config.videoPollAfterMs / 1000)) };
}

// ── files, admin, and the catch-all ──────────────────────────────────────────────────────────────
function fileHandlers(state: MockState): HttpHandler[] {
  return [
    http.get(`*${FILES_PATH}/:name`, ({ params }) => {
      const requestId = newRequestId();
      const name = String(params.name);
      const file = state.files.get(name);
      if (!file) return apiError(404, 'not_found', `No file "${name}".`, requestId);
      const bytes = file.kind === 'image' ? renderPng(file.agentId, file.prompt) : renderVideo(file.agentId, file.prompt);
      return new HttpResponse(bytes, {
        status: 200,
        headers: {
          'content-type': file.kind === 'image' ? 'image/png' : VIDEO_CONTENT_TYPE,
          'content-length': String(bytes.length),
          'cache-control': 'public, max-age=31536000, immutable',
          'x-request-id': requestId,
        },
      });
    }),
  ];
}

function adminHandlers(state: MockState, issueKey: () => string): HttpHandler[] {
  const ok = (body: unknown): Response => json(200, body, newRequestId());
  const wrap =
    (fn: (request: Request) => Promise<Response>) =>
    async ({ request }: { request: Request }) => {
      try {
        return await fn(request);
      } catch (error) {
        if (error instanceof Reject) return apiError(error.status, error.code, error.message, newRequestId(), error.extra);
        throw error;
      }
    };
  return [
    http.get(`*${ADMIN_PATH}/state`, () =>
      ok({
        credits: state.credits,
        ledger: state.ledger,
        config: state.config,
        requests: state.requests,
        runs: [...state.runs.values()],
        videos: [...state.videos.values()],
        streams: Object.fromEntries(state.streams),
      }),
    ),
    http.post(`*${ADMIN_PATH}/reset`, () => {
      state.reset();
      return ok({ credits: state.credits });
    }),
    http.post(
      `*${ADMIN_PATH}/config`,
      wrap(async (request) => {
        state.configure(validateConfig(await readJsonObject(request)));
        return ok(state.config);
      }),
    ),
    http.post(`*${ADMIN_PATH}/keys`, () => ok({ apiKey: issueKey() })),
    http.post(
      `*${ADMIN_PATH}/keys/revoke`,
      wrap(async (request) => {
        const body = await readJsonObject(request);
        if (!state.revokeApiKey(requiredString(body, 'apiKey'))) throw new Reject(404, 'not_found', 'No such key.');
        return ok({ revoked: true });
      }),
    ),
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
  const known = new Set(['credits', 'videoOutcome', 'videoSteps', 'videoPollAfterMs', 'streamStepMs', 'latencyMs', 'faults', 'seed']);
  for (const field of Object.keys(body))
    if (!known.has(field)) throw new Reject(400, 'invalid_request', `Unknown setting "${field}".`, { field });
  patch.credits = int('credits', 0);
  patch.videoSteps = int('videoSteps', 1);
  patch.videoPollAfterMs = int('videoPollAfterMs', 0);
  patch.streamStepMs = int('streamStepMs', 0);
  patch.latencyMs = int('latencyMs', 0);
  if (body.seed !== undefined) {
    if (typeof body.seed !== 'string' && typeof body.seed !== 'number')
      throw new Reject(400, 'invalid_request', '"seed" must be a string or a number.', { field: 'seed' });
    patch.seed = String(body.seed);
  }
  if (body.videoOutcome !== undefined) {
    if (!['succeed', 'fail', 'random'].includes(body.videoOutcome as string))
      throw new Reject(400, 'invalid_request', '"videoOutcome" must be succeed, fail or random.', { field: 'videoOutcome' });
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
  for (const key of Object.keys(patch) as (keyof MockConfig)[]) if (patch[key] === undefined) delete patch[key];
  return patch;
}

/** Known routes, for telling 405 (wrong method) from 404 (no such path). */
function routeTable(): { method: string; pattern: RegExp }[] {
  const toRegex = (path: string): RegExp => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`);
  return [
    ...Object.values(ENDPOINTS).map((spec) => ({ method: spec.method, pattern: toRegex(spec.path) })),
    { method: 'GET', pattern: toRegex(`${FILES_PATH}/:name`) },
    { method: 'GET', pattern: toRegex(`${ADMIN_PATH}/state`) },
    ...['reset', 'config', 'keys', 'keys/revoke'].map((p) => ({ method: 'POST', pattern: toRegex(`${ADMIN_PATH}/${p}`) })),
  ];
}

function fallbackHandlers(): HttpHandler[] {
  const table = routeTable();
  const fallback = ({ request }: { request: Request }): Response => {
    const requestId = newRequestId();
    const path = new URL(request.url).pathname;
    const allowed = table.filter((route) => route.pattern.test(path)).map((route) => route.method);
    if (allowed.length) {
      return apiError(
        405,
        'method_not_allowed',
        `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
        requestId,
        {},
        { allow: allowed.join(', ') },
      );
    }
    return apiError(404, 'not_found', `No route ${request.method} ${path}.`, requestId);
  };
  // Only the service's own path spaces: mounted in someone's msw setup, the mock must not swallow
  // their other requests.
  return [http.all('*/api/*', fallback), http.all(`*${ADMIN_PATH}/*`, fallback), http.all(`*${FILES_PATH}/*`, fallback)];
}

/** Paths of the service's own path spaces that no route can decode: 400, not a 500 from msw's matcher. */
function malformedPathHandler(): HttpHandler {
  const malformed = ({ request }: { request: Request }): boolean => {
    const path = new URL(request.url).pathname;
    if (!/\/(api|files|__mock)\//.test(path)) return false;
    try {
      decodeURIComponent(path);
      return false;
    } catch {
      return true;
    }
  };
  return http.all(malformed, () => apiError(400, 'invalid_request', 'The request path has malformed percent-encoding.', newRequestId()));
}

/** Every handler of the mock over one state, in match order. */
export function createHandlers(state: MockState, issueKey: () => string = () => state.issueApiKey()): HttpHandler[] {
  return [
    malformedPathHandler(),
    ...publicHandlers(state),
    ...fileHandlers(state),
    ...adminHandlers(state, issueKey),
    ...fallbackHandlers(),
  ];
}
