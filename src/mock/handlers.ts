// The mock API: each endpoint a plain function over the state (see route.ts for the layers around
// it). The same routes answer real sockets (server.ts) and in-process fetches (msw.ts).
import { MAX_PROMPT_LENGTH } from './constants.js';
import { callPrice, PRICES } from './prices.js';
import { DEFAULT_VIDEO_AGENT } from './seed.js';
import { type MockState } from './state.js';
import { adminRoutes, fileRoutes } from './admin.js';
import { type MockResponse, type StreamBody } from './exchange.js';
import { generationRecord, runRecord, videoRecord } from './records.js';
import { Reject, json, optionalString, prompt, readJsonObject, rejectNull, requiredString } from './responses.js';
import { type RouteContext, route } from './route.js';
import { type Route } from './router.js';

const ASPECT_RATIOS = ['16:9', '1:1', '9:16'] as const;

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
  const requested = requiredString(body, 'agentId');
  const promptText = prompt(body);
  // The seeded agent's own id string: a file record per generation must not keep a copy of it.
  const agentId = imageAgent(state, requested).id;
  const id = state.newId('gen');
  ctx.charge(PRICES.generation, `${via} ${id}`);
  state.addFile(`${id}.png`, { kind: 'image', agentId, prompt: promptText });
  return generationRecord(ctx.origin, id, agentId, promptText, { charged: PRICES.generation, remaining: state.credits });
}

function streamRoute(state: MockState): Route {
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
    const frames = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const stream: StreamBody = {
      start(write, end) {
        let index = 0;
        let timer: NodeJS.Timeout | undefined;
        const next = (): void => {
          write(frames[index] ?? '');
          state.streams.set(record.id, { status: 'streaming', events: index + 1 });
          index += 1;
          if (index === events.length) {
            state.streams.set(record.id, { status: 'completed', events: index });
            response.onStreamSettled?.(frames.join(''));
            end();
            return;
          }
          timer = setTimeout(next, state.config.streamStepMs);
        };
        next();
        return () => {
          // The client went away: stop producing events.
          clearTimeout(timer);
          const current = state.streams.get(record.id);
          if (current?.status !== 'streaming') return;
          state.streams.set(record.id, { ...current, status: 'cancelled' });
          // The generation is made and charged: a retry with the same Idempotency-Key replays the
          // whole stream (as after a truncated answer) instead of finding the key in flight forever.
          response.onStreamSettled?.(frames.join(''));
        };
      },
    };
    const response = {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' },
      body: stream,
    } as MockResponse;
    return response;
  });
}

function publicRoutes(state: MockState): Route[] {
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
      rejectNull(body, 'overrides');
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
      const price = PRICES.runPerNode * workflow.nodes.length;
      ctx.charge(price, `run ${runId} (${workflow.id})`);
      const run = state.createRun(runId, workflow, overrides as Record<string, string>);
      return json(201, runRecord(ctx.origin, run, { charged: price, remaining: state.credits }), ctx.requestId);
    }),
    route(state, 'getRun', async (ctx) => {
      const run = state.runs.get(ctx.params.runId ?? '');
      if (!run) throw new Reject(404, 'run_not_found', `No run "${ctx.params.runId}".`);
      const price = callPrice(ctx.principal.kind);
      ctx.charge(price, `poll ${run.id}`);
      state.advanceRun(run);
      return json(200, runRecord(ctx.origin, run, { charged: price, remaining: state.credits }), ctx.requestId);
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
      for (const field of ['durationSeconds', 'aspectRatio']) rejectNull(body, field);
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

/** Every route of the mock over one state. */
export function createRoutes(state: MockState, issueKey: () => string = () => state.credentials.issueApiKey()): Route[] {
  return [...publicRoutes(state), ...fileRoutes(state), ...adminRoutes(state, issueKey)];
}
