// The service document's statements, as the mock implements them: auth, credits, refunds,
// workflows, agents, bad input, idempotency, admin API and faults — over a real socket.
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointPath, type EndpointName } from '../../src/api/endpoints.js';
import { API_KEY_PREFIX, MAX_BODY_BYTES, PRICES } from '../../src/mock/index.js';
import { MockState } from '../../src/mock/state.js';
import { expectErrorShape, startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock({ seed: 'contract' });
});
afterAll(async () => {
  await mock.server.close();
});
beforeEach(async () => {
  await mock.reset();
  await mock.config({ videoPollAfterMs: 0, streamStepMs: 1 });
});

const GENERATE = { agentId: 'sprite-artist', prompt: 'rusty sword' };
const bodies: Record<EndpointName, unknown> = {
  generate: GENERATE,
  sessionGenerate: GENERATE,
  stream: GENERATE,
  listAgents: undefined,
  listWorkflows: undefined,
  runWorkflow: {},
  getRun: undefined,
  createVideo: { prompt: 'torch' },
  getVideo: undefined,
};

async function pathFor(name: EndpointName): Promise<string> {
  if (name === 'runWorkflow') return endpointPath(name, { id: 'wf_sprite_sheet' });
  if (name === 'getRun')
    return endpointPath(name, { runId: (await mock.call('POST', endpointPath('runWorkflow', { id: 'wf_sprite_sheet' }))).json.id });
  if (name === 'getVideo')
    return endpointPath(name, { id: (await mock.call('POST', endpointPath('createVideo'), { body: { prompt: 'x' } })).json.id });
  return endpointPath(name);
}

describe('1. authentication of all nine endpoints', () => {
  const issueKey = async (): Promise<string> =>
    ((await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string }).apiKey;
  const revokeKey = async (apiKey: string): Promise<void> => {
    const response = await fetch(`${mock.url}/__mock/keys/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey }),
    });
    expect(response.status).toBe(200);
  };

  for (const [name, spec] of Object.entries(ENDPOINTS) as [EndpointName, (typeof ENDPOINTS)[EndpointName]][]) {
    const takesKey = (spec.auth as readonly string[]).includes('apiKey');
    const takesSession = (spec.auth as readonly string[]).includes('session');
    it(`${spec.method} ${spec.path} accepts ${spec.auth.join(' or ')} and refuses missing, malformed, unknown and revoked credentials with 401`, async () => {
      const path = await pathFor(name);
      const revoked = await issueKey();
      await revokeKey(revoked);
      const ledgerBefore = (await mock.state()).ledger.length;
      const attempt = (auth: 'key' | 'session' | 'none' | Record<string, string>) =>
        mock.call(spec.method, path, { auth, body: bodies[name] });

      const missing = await attempt('none');
      expect(missing.status).toBe(401);
      expectErrorShape(missing.json, 'unauthorized');
      expect(missing.headers.get('content-type')).toMatch(/^application\/json/);

      // With a key in the Authorization header: refused as a bad credential where keys are taken,
      // as "session required" where they are not.
      const keyCode = takesKey ? 'invalid_credentials' : 'session_required';
      const badKeys: [string, string][] = [
        ['malformed: not Bearer', 'Basic YWxhZGRpbjpvcGVu'],
        ['malformed: wrong prefix', 'Bearer sk_live_0123456789abcdef0123456789'],
        ['malformed: too short', `Bearer ${API_KEY_PREFIX}abc`],
        ['malformed: empty', 'Bearer '],
        ['unknown', `Bearer ${API_KEY_PREFIX}${'0'.repeat(40)}`],
        ['revoked', `Bearer ${revoked}`],
      ];
      for (const [what, authorization] of badKeys) {
        const result = await attempt({ authorization });
        expect(result.status, what).toBe(401);
        expectErrorShape(result.json, keyCode);
        if (takesKey && what === 'revoked') expect(result.json.error.message).toMatch(/revoked/);
      }
      // With a cookie: refused as a bad session where sessions are taken; a key-only endpoint
      // does not look at cookies at all.
      for (const cookie of ['ag_session=nope', 'ag_session=', 'other=1; ag_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
        const result = await attempt({ cookie });
        expect(result.status, cookie).toBe(401);
        expectErrorShape(result.json, takesSession ? 'invalid_credentials' : 'unauthorized');
        if (!takesSession) expect(result.json.error.message).toMatch(/API key/);
      }
      // No refusal charged anything.
      expect((await mock.state()).ledger).toHaveLength(ledgerBefore);

      if (takesKey) {
        expect((await attempt('key')).status).toBeLessThan(300);
      } else {
        const keyOnly = await attempt('key');
        expect(keyOnly.status).toBe(401);
        expectErrorShape(keyOnly.json, 'session_required');
      }
      if (takesSession) expect((await attempt('session')).status).toBeLessThan(300);
      else {
        const sessionOnly = await attempt('session');
        expect(sessionOnly.status).toBe(401);
        expectErrorShape(sessionOnly.json, 'unauthorized');
      }
    });
  }

  it('a key works until it is revoked, and stays revoked after a reset', async () => {
    const apiKey = await issueKey();
    const withKey = { authorization: `Bearer ${apiKey}` };
    expect((await mock.call('GET', '/api/v1/workflows', { auth: withKey })).status).toBe(200);
    await revokeKey(apiKey);
    const refused = await mock.call('GET', '/api/v1/workflows', { auth: withKey });
    expect(refused.status).toBe(401);
    expectErrorShape(refused.json, 'invalid_credentials');
    await mock.reset();
    expect((await mock.call('GET', '/api/v1/workflows', { auth: withKey })).status).toBe(401);
    const unknown = await fetch(`${mock.url}/__mock/keys/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: `${API_KEY_PREFIX}${'f'.repeat(40)}` }),
    });
    expect(unknown.status).toBe(404);
    expectErrorShape(await unknown.json(), 'not_found');
  });
});

describe('2. API keys', () => {
  it('start with the fixed prefix, are shown once and stored only as hashes', async () => {
    expect(mock.key.startsWith(API_KEY_PREFIX)).toBe(true);
    const { apiKey } = (await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string };
    expect(apiKey.startsWith(API_KEY_PREFIX)).toBe(true);
    const everything = JSON.stringify(await mock.state()) + JSON.stringify(mock.server.service.state);
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(mock.key);
  });

  it('are checked by hash: right key accepted, a one-character change refused', () => {
    const state = new MockState();
    const key = state.credentials.issueApiKey();
    expect(state.credentials.checkApiKey(key)).toMatchObject({ kind: 'apiKey' });
    expect(state.credentials.checkApiKey(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`)).toBe('unknown');
    expect(state.credentials.checkApiKey('sk_live_something_else_entirely')).toBe('malformed');
  });
});

describe('3. credits', () => {
  it('charges every call per the price table and reports it in headers and body', async () => {
    const generated = await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    expect(generated.status).toBe(201);
    expect(generated.headers.get('x-credits-charged')).toBe(String(PRICES.generation));
    expect(generated.headers.get('x-credits-remaining')).toBe(String(1000 - PRICES.generation));
    expect(generated.json.credits).toEqual({ charged: PRICES.generation, remaining: 1000 - PRICES.generation });
    const listed = await mock.call('GET', '/api/v1/workflows');
    expect(listed.headers.get('x-credits-charged')).toBe(String(PRICES.keyCall));
    const bySession = await mock.call('GET', '/api/v1/workflows', { auth: 'session' });
    expect(bySession.headers.get('x-credits-charged')).toBe('0');
    const run = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    expect(run.headers.get('x-credits-charged')).toBe(String(PRICES.runPerNode * 4));
    expect((await mock.state()).credits).toBe(1000 - 10 - 1 - 20);
  });

  it('charges a video job exactly 180 at submission, with its creation', async () => {
    const video = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect(video.status).toBe(202);
    const state = await mock.state();
    expect(state.ledger).toEqual([expect.objectContaining({ amount: -180, reason: `video ${video.json.id}` })]);
    expect(state.videos).toHaveLength(1);
  });

  it('answers 402 with required and balance, charging nothing and creating nothing', async () => {
    await mock.config({ credits: 100 });
    const video = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect(video.status).toBe(402);
    expectErrorShape(video.json, 'insufficient_credits');
    expect(video.json.error).toMatchObject({ required: 180, balance: 100 });
    await mock.config({ credits: 5 });
    expect((await mock.call('POST', '/api/v1/workflows/wf_tileset/run')).status).toBe(402);
    expect((await mock.call('POST', '/api/v1/generate', { body: GENERATE })).status).toBe(402);
    const state = await mock.state();
    expect(state.credits).toBe(5);
    expect(state.ledger).toEqual([]);
    expect(state.videos).toEqual([]);
    expect(state.runs).toEqual([]);
  });
});

describe('3. credits: the whole price table', () => {
  const service = () => mock.server.service.state;
  const paid: {
    what: string;
    method: string;
    path: () => Promise<string>;
    auth: 'key' | 'session';
    body?: unknown;
    price: number;
    bodyCredits: boolean;
  }[] = [
    {
      what: 'generate (key)',
      method: 'POST',
      path: async () => '/api/v1/generate',
      auth: 'key',
      body: GENERATE,
      price: PRICES.generation,
      bodyCredits: true,
    },
    {
      what: 'session generate',
      method: 'POST',
      path: async () => '/api/ai/generate',
      auth: 'session',
      body: GENERATE,
      price: PRICES.generation,
      bodyCredits: true,
    },
    {
      what: 'stream',
      method: 'POST',
      path: async () => '/api/ai/stream',
      auth: 'session',
      body: GENERATE,
      price: PRICES.generation,
      bodyCredits: false,
    },
    {
      what: 'list workflows (key)',
      method: 'GET',
      path: async () => '/api/v1/workflows',
      auth: 'key',
      price: PRICES.keyCall,
      bodyCredits: false,
    },
    {
      what: 'list workflows (session)',
      method: 'GET',
      path: async () => '/api/v1/workflows',
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: false,
    },
    {
      what: 'list agents (session)',
      method: 'GET',
      path: async () => '/api/ai/agents',
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: false,
    },
    {
      what: 'run sprite sheet (key)',
      method: 'POST',
      path: async () => '/api/v1/workflows/wf_sprite_sheet/run',
      auth: 'key',
      price: PRICES.runPerNode * 3,
      bodyCredits: false,
    },
    {
      what: 'run tileset (session)',
      method: 'POST',
      path: async () => '/api/v1/workflows/wf_tileset/run',
      auth: 'session',
      price: PRICES.runPerNode * 4,
      bodyCredits: false,
    },
    {
      what: 'run turnaround (key)',
      method: 'POST',
      path: async () => '/api/v1/workflows/wf_character_turnaround/run',
      auth: 'key',
      price: PRICES.runPerNode * 6,
      bodyCredits: false,
    },
    {
      what: 'poll a run (key)',
      method: 'GET',
      path: async () => `/api/v1/runs/${(await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { auth: 'session' })).json.id}`,
      auth: 'key',
      price: PRICES.keyCall,
      bodyCredits: false,
    },
    {
      what: 'poll a run (session)',
      method: 'GET',
      path: async () => `/api/v1/runs/${(await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { auth: 'session' })).json.id}`,
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: false,
    },
    {
      what: 'video (key)',
      method: 'POST',
      path: async () => '/api/v1/video',
      auth: 'key',
      body: { prompt: 'torch' },
      price: 180,
      bodyCredits: true,
    },
    {
      what: 'video (session)',
      method: 'POST',
      path: async () => '/api/v1/video',
      auth: 'session',
      body: { prompt: 'torch' },
      price: 180,
      bodyCredits: true,
    },
    {
      what: 'poll a video (key)',
      method: 'GET',
      path: async () => `/api/v1/video/${(await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: 'x' } })).json.id}`,
      auth: 'key',
      price: PRICES.keyCall,
      bodyCredits: true,
    },
    {
      what: 'poll a video (session)',
      method: 'GET',
      path: async () => `/api/v1/video/${(await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: 'x' } })).json.id}`,
      auth: 'session',
      price: PRICES.sessionCall,
      bodyCredits: true,
    },
  ];

  it('the table is the documented one; a video is 180', () => {
    expect(PRICES).toEqual({ generation: 10, runPerNode: 5, video: 180, keyCall: 1, sessionCall: 0 });
  });

  for (const call of paid) {
    it(`${call.what} costs ${call.price}, reported in headers${call.bodyCredits ? ' and body' : ''} and the ledger`, async () => {
      const path = await call.path();
      const before = (await mock.state()).credits;
      const ledgerBefore = (await mock.state()).ledger.length;
      const result = await mock.call(call.method, path, { auth: call.auth, body: call.body });
      expect(result.status).toBeLessThan(300);
      expect(result.headers.get('x-credits-charged')).toBe(String(call.price));
      expect(result.headers.get('x-credits-remaining')).toBe(String(before - call.price));
      if (call.bodyCredits) expect(result.json.credits).toEqual({ charged: call.price, remaining: before - call.price });
      const after = await mock.state();
      expect(after.credits).toBe(before - call.price);
      const added = after.ledger.slice(ledgerBefore);
      expect(added.map((entry: { amount: number }) => entry.amount)).toEqual(call.price ? [-call.price] : []);
    });
  }

  for (const call of paid.filter((c) => c.price > 0)) {
    it(`${call.what} with ${call.price - 1} credits → 402 {required, balance}, nothing charged or created`, async () => {
      const path = await call.path();
      await mock.config({ credits: call.price - 1 });
      const before = await mock.state();
      const files = service().files.size;
      const result = await mock.call(call.method, path, { auth: call.auth, body: call.body });
      expect(result.status).toBe(402);
      expectErrorShape(result.json, 'insufficient_credits');
      expect(result.json.error).toMatchObject({ required: call.price, balance: call.price - 1 });
      expect(result.headers.get('x-credits-charged')).toBe('0');
      expect(result.headers.get('x-credits-remaining')).toBe(String(call.price - 1));
      const after = await mock.state();
      expect(after.credits).toBe(call.price - 1);
      expect(after.ledger).toEqual(before.ledger);
      expect(after.runs).toEqual(before.runs);
      expect(after.videos).toEqual(before.videos);
      expect(service().files.size).toBe(files);
      expect(Object.keys(after.streams)).toEqual(Object.keys(before.streams));
    });
  }

  it('a 402 poll does not advance the run (a session poll, free, still does)', async () => {
    const { json: run } = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    await mock.config({ credits: 0 });
    expect((await mock.call('GET', `/api/v1/runs/${run.id}`)).status).toBe(402);
    expect((await mock.state()).runs[0].completedNodes).toBe(0);
    expect((await mock.call('GET', `/api/v1/runs/${run.id}`, { auth: 'session' })).json.completedNodes).toBe(1);
  });
});

describe('4. failed video jobs are refunded by the mock', () => {
  it('refunds once, visible in the ledger, the job record and the balance', async () => {
    await mock.config({ videoOutcome: 'fail', videoSteps: 2 });
    const { json: job } = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect((await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' })).json.status).toBe('processing');
    const failed = await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' });
    expect(failed.json).toMatchObject({ status: 'failed', refunded: true, refund: { amount: 180 }, error: { code: 'generation_failed' } });
    await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' });
    const state = await mock.state();
    expect(state.ledger.map((entry: { amount: number }) => entry.amount)).toEqual([-180, 180]);
    expect(state.credits).toBe(1000);
  });

  it('delivers a succeeded job with a real file', async () => {
    await mock.config({ videoSteps: 1 });
    const { json: job } = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch', durationSeconds: 2, aspectRatio: '1:1' } });
    const done = await mock.call('GET', `/api/v1/video/${job.id}`);
    expect(done.json).toMatchObject({ status: 'succeeded', refunded: false, durationSeconds: 2, aspectRatio: '1:1' });
    const file = await fetch(done.json.output.url);
    expect(file.headers.get('content-type')).toBe('image/gif');
    expect(
      Buffer.from(await file.arrayBuffer())
        .subarray(0, 6)
        .toString(),
    ).toBe('GIF89a');
  });
});

describe('4. refunds and video polling', () => {
  it('a failed job is refunded exactly once however often it is polled, by key or by session', async () => {
    await mock.config({ videoOutcome: 'fail', videoSteps: 3 });
    const { json: job } = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    const polls = [];
    for (let i = 0; i < 6; i++) polls.push((await mock.call('GET', `/api/v1/video/${job.id}`, { auth: i % 2 ? 'key' : 'session' })).json);
    expect(polls.map((p) => p.status)).toEqual(['processing', 'processing', 'failed', 'failed', 'failed', 'failed']);
    expect(polls.map((p) => p.refunded)).toEqual([false, false, true, true, true, true]);
    for (const failed of polls.slice(2))
      expect(failed).toMatchObject({ refund: { amount: 180, at: polls[2].refund.at }, output: null, progress: 1 });
    const state = await mock.state();
    const refunds = state.ledger.filter((entry: { amount: number }) => entry.amount > 0);
    expect(refunds).toEqual([expect.objectContaining({ amount: 180, reason: `refund ${job.id}` })]);
    // 1000 − 180 + 180 − the key polls (polls 2, 4 and 6 are by key, 1 each).
    expect(state.credits).toBe(1000 - 3 * PRICES.keyCall);
    expect(state.videos[0]).toMatchObject({ id: job.id, status: 'failed', refund: { amount: 180 } });
  });

  it('random outcomes follow the seed', async () => {
    const outcomes = async () => {
      await mock.reset();
      await mock.config({ videoOutcome: 'random', videoSteps: 1, seed: 'refunds', credits: 10_000 });
      const result = [];
      for (let i = 0; i < 12; i++) {
        const { json: job } = await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: `p${i}` } });
        result.push((await mock.call('GET', `/api/v1/video/${job.id}`, { auth: 'session' })).json.status);
      }
      return result;
    };
    const first = await outcomes();
    expect(new Set(first)).toEqual(new Set(['succeeded', 'failed']));
    expect(await outcomes()).toEqual(first);
    const state = await mock.state();
    expect(state.credits).toBe(10_000 - 180 * first.filter((s) => s === 'succeeded').length);
  });

  it('unfinished jobs carry Retry-After and pollAfterMs; finished ones do not ask to poll again', async () => {
    await mock.config({ videoPollAfterMs: 2500, videoSteps: 2 });
    const created = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' } });
    expect(created.status).toBe(202);
    expect(created.headers.get('retry-after')).toBe('3');
    expect(created.json).toMatchObject({
      status: 'queued',
      pollAfterMs: 2500,
      progress: 0,
      output: null,
      error: null,
      refunded: false,
      refund: null,
    });
    const processing = await mock.call('GET', `/api/v1/video/${created.json.id}`);
    expect(processing.json.status).toBe('processing');
    expect(processing.headers.get('retry-after')).toBe('3');
    const done = await mock.call('GET', `/api/v1/video/${created.json.id}`);
    expect(done.json.status).toBe('succeeded');
    expect(done.headers.get('retry-after')).toBeNull();
    expect(done.json.output).toEqual({ url: `${mock.url}/files/${created.json.id}.gif`, contentType: 'image/gif' });
  });
});

describe('5. workflows and runs', () => {
  it('lists at least three workflows of different lengths with overridable nodes', async () => {
    const { json } = await mock.call('GET', '/api/v1/workflows');
    expect(json.workflows.length).toBeGreaterThanOrEqual(3);
    expect(new Set(json.workflows.map((w: { nodes: unknown[] }) => w.nodes.length)).size).toBe(json.workflows.length);
    for (const workflow of json.workflows) {
      expect(workflow.overridableNodes.length).toBeGreaterThan(0);
      for (const node of workflow.nodes)
        expect(node).toEqual(expect.objectContaining({ id: expect.any(String), type: expect.any(String), label: expect.any(String) }));
    }
  });

  it('finishes a run of N nodes on the N-th poll, with each node output, and leaves it unchanged after', async () => {
    const { json: workflows } = await mock.call('GET', '/api/v1/workflows', { auth: 'session' });
    for (const workflow of workflows.workflows) {
      const { json: run } = await mock.call('POST', `/api/v1/workflows/${workflow.id}/run`, {
        auth: 'session',
        body: { overrides: { [workflow.overridableNodes[0]]: 'a frog knight' } },
      });
      expect(run).toMatchObject({ status: 'queued', completedNodes: 0, totalNodes: workflow.nodes.length });
      let last = run;
      for (let poll = 1; poll <= workflow.nodes.length; poll++) {
        last = (await mock.call('GET', `/api/v1/runs/${run.id}`, { auth: 'session' })).json;
        expect(last.completedNodes).toBe(poll);
        expect(last.status).toBe(poll === workflow.nodes.length ? 'succeeded' : 'running');
        expect(last.nodes[poll - 1].status).toBe('succeeded');
        expect(last.nodes[poll - 1].output).toBeDefined();
      }
      expect(last.nodes[0].output).toEqual({ text: 'a frog knight' });
      for (let extra = 0; extra < 3; extra++) {
        const again = (await mock.call('GET', `/api/v1/runs/${run.id}`, { auth: 'session' })).json;
        expect(again).toEqual(last);
      }
      expect(last.currentNode).toBeNull();
      for (const node of last.nodes) expect(node.output).toBeDefined();
      for (const output of last.outputs) expect((await fetch(output.url)).headers.get('content-type')).toBe('image/png');
    }
  });

  it('accepts overrides only for overridable nodes, naming the node otherwise', async () => {
    for (const node of ['palette', 'nope']) {
      const result = await mock.call('POST', '/api/v1/workflows/wf_tileset/run', { body: { overrides: { [node]: 'x' } } });
      expect(result.status).toBe(400);
      expectErrorShape(result.json, 'invalid_override');
      expect(result.json.error.node).toBe(node);
    }
    expect((await mock.call('POST', '/api/v1/workflows/wf_nope/run')).status).toBe(404);
    expect((await mock.call('GET', '/api/v1/runs/run_nope')).status).toBe(404);
    expect((await mock.state()).ledger).toEqual([]);
  });
});

describe('7. agents', () => {
  it('lists the seeded agents and rejects unknown or wrong-kind agents with 4xx', async () => {
    const { json } = await mock.call('GET', '/api/ai/agents', { auth: 'session' });
    expect(json.agents.map((a: { id: string; kind: string }) => `${a.id}:${a.kind}`)).toEqual([
      'sprite-artist:image',
      'tile-smith:image',
      'icon-forge:image',
      'motion-director:video',
    ]);
    const unknown = { agentId: 'nobody', prompt: 'x' };
    for (const [path, auth, body] of [
      ['/api/v1/generate', 'key', unknown],
      ['/api/ai/generate', 'session', unknown],
      ['/api/ai/stream', 'session', unknown],
      ['/api/v1/video', 'key', { prompt: 'x', agentId: 'nobody' }],
    ] as const) {
      const result = await mock.call('POST', path, { auth, body });
      expect(result.status, path).toBe(404);
      expectErrorShape(result.json, 'unknown_agent');
    }
    for (const [path, auth, body] of [
      ['/api/v1/generate', 'key', { agentId: 'motion-director', prompt: 'x' }],
      ['/api/ai/generate', 'session', { agentId: 'motion-director', prompt: 'x' }],
      ['/api/ai/stream', 'session', { agentId: 'motion-director', prompt: 'x' }],
      ['/api/v1/video', 'key', { prompt: 'x', agentId: 'tile-smith' }],
    ] as const) {
      const result = await mock.call('POST', path, { auth, body });
      expect(result.status, path).toBe(400);
      expectErrorShape(result.json, 'wrong_agent_kind');
      expect(result.json.error.agentId).toBe(body.agentId);
    }
    expect(json.agents.every((a: Record<string, unknown>) => typeof a.name === 'string' && typeof a.description === 'string')).toBe(true);
    expect((await mock.state()).ledger).toEqual([]);
  });
});

describe('9. bad input never yields a 5xx', () => {
  const cases: [string, string, { raw?: string; body?: unknown; headers?: Record<string, string> }, number, string][] = [
    ['malformed JSON', '/api/v1/generate', { raw: '{"agentId": ' }, 400, 'invalid_json'],
    ['empty body', '/api/v1/generate', { raw: '' }, 400, 'invalid_request'],
    ['an array body', '/api/v1/generate', { body: [1, 2] }, 400, 'invalid_request'],
    ['missing field', '/api/v1/generate', { body: { agentId: 'sprite-artist' } }, 400, 'invalid_request'],
    ['wrong type', '/api/v1/generate', { body: { agentId: 7, prompt: 'x' } }, 400, 'invalid_request'],
    ['a prompt too long', '/api/v1/generate', { body: { agentId: 'sprite-artist', prompt: 'x'.repeat(2001) } }, 400, 'prompt_too_long'],
    ['a bad duration', '/api/v1/video', { body: { prompt: 'x', durationSeconds: 'long' } }, 400, 'invalid_request'],
    ['a bad aspect ratio', '/api/v1/video', { body: { prompt: 'x', aspectRatio: '4:3' } }, 400, 'invalid_request'],
    ['overrides not an object', '/api/v1/workflows/wf_tileset/run', { body: { overrides: 'x' } }, 400, 'invalid_request'],
    [
      'an oversized body',
      '/api/v1/generate',
      { raw: JSON.stringify({ agentId: 'x', prompt: 'y'.repeat(MAX_BODY_BYTES) }) },
      413,
      'payload_too_large',
    ],
  ];
  for (const [what, path, options, status, code] of cases) {
    it(`${what} → ${status} ${code}`, async () => {
      const result = await mock.call('POST', path, options);
      expect(result.status).toBe(status);
      expectErrorShape(result.json, code);
    });
  }

  it('a chunked oversized body → 413', async () => {
    const big = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 80; i++) controller.enqueue(new Uint8Array(1024).fill(120));
        controller.close();
      },
    });
    const response = await fetch(`${mock.url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json' },
      body: big,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expectErrorShape(await response.json(), 'payload_too_large');
  });

  it('unknown routes → 404 and wrong methods → 405 with Allow', async () => {
    const missing = await mock.call('GET', '/api/v1/nothing');
    expect(missing.status).toBe(404);
    expectErrorShape(missing.json, 'not_found');
    const wrong = await mock.call('DELETE', '/api/v1/workflows');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expectErrorShape(wrong.json, 'method_not_allowed');
    expect((await mock.call('GET', '/api/v1/generate')).headers.get('allow')).toBe('POST');
  });
});

describe('9. bad input never yields a 5xx: every POST endpoint, odd paths, odd methods', () => {
  const posts: [string, 'key' | 'session'][] = [
    ['/api/v1/generate', 'key'],
    ['/api/ai/generate', 'session'],
    ['/api/ai/stream', 'session'],
    ['/api/v1/video', 'key'],
    ['/api/v1/workflows/wf_tileset/run', 'key'],
  ];
  const badBodies: [string, string][] = [
    ['malformed JSON', '{"agentId": "sprite-artist", "prompt": '],
    ['not JSON at all', 'agentId=sprite-artist&prompt=x'],
    ['JSON null', 'null'],
    ['a JSON string', '"hello"'],
    ['a JSON number', '42'],
    ['an array', '[{"agentId": "sprite-artist", "prompt": "x"}]'],
    ['wrong types', '{"agentId": ["sprite-artist"], "prompt": 5, "overrides": [1], "durationSeconds": "4", "aspectRatio": 169}'],
    ['null fields', '{"agentId": null, "prompt": null, "overrides": {"theme": null}}'],
    ['blank strings', '{"agentId": " ", "prompt": "   ", "overrides": {"theme": ""}}'],
    ['nested garbage', '{"agentId": {"$ne": 1}, "prompt": {"toString": 1}, "overrides": {"__proto__": "x"}}'],
    ['a huge number', '{"prompt": "x", "durationSeconds": 1e400}'],
  ];
  for (const [path, auth] of posts) {
    it(`POST ${path}: ${badBodies.length} bad bodies → 4xx JSON errors, nothing charged`, async () => {
      for (const [what, raw] of badBodies) {
        const result = await mock.call('POST', path, { auth, raw });
        if (path.endsWith('/run') && result.status === 201) continue; // a run's body is optional: bodies without "overrides" are fine
        expect(result.status, `${what}: ${result.text}`).toBeGreaterThanOrEqual(400);
        expect(result.status, what).toBeLessThan(500);
        expect(result.headers.get('content-type'), what).toMatch(/^application\/json/);
        expectErrorShape(result.json);
        expect(result.json.error.code).toMatch(/^[a-z_]+$/);
        expect(result.headers.get('x-request-id')).toBe(result.json.error.requestId);
      }
      const empty = await mock.call('POST', path, { auth });
      if (!path.endsWith('/run')) {
        expect(empty.status).toBe(400);
        expectErrorShape(empty.json, 'invalid_request');
      }
      const ledger = (await mock.state()).ledger;
      expect(ledger.filter((entry: { reason: string }) => !entry.reason.startsWith('run '))).toEqual([]);
    });
  }

  it('malformed percent-encoding in a path → 400, not a 500 from the router', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/runs/%E0%A4%A'],
      ['GET', '/api/v1/video/%ZZ'],
      ['POST', '/api/v1/workflows/%/run'],
      ['GET', '/files/%C0'],
      ['GET', '/__mock/%ZZ'],
    ] as const) {
      const result = await mock.call(method, path, { body: method === 'POST' ? {} : undefined });
      expect(result.status, path).toBe(400);
      expectErrorShape(result.json, 'invalid_request');
    }
  });

  it('odd paths and methods: 404 or 405, always JSON with a request id', async () => {
    const cases: [string, string, number][] = [
      ['GET', '/', 404],
      ['GET', '/favicon.ico', 404],
      ['GET', '/api', 404],
      ['GET', '/api/v2/generate', 404],
      ['GET', '/api/v1/runs/a/b', 404],
      ['GET', '/files/', 404],
      ['GET', '/files/gen_missing.png', 404],
      ['GET', '/files/..%2F..%2Fetc%2Fpasswd', 404],
      ['GET', '/__mock/nothing', 404],
      ['PUT', '/api/v1/generate', 405],
      ['PATCH', '/api/v1/runs/run_x', 405],
      ['OPTIONS', '/api/ai/agents', 405],
      ['DELETE', '/api/v1/video/vid_x', 405],
      ['POST', '/__mock/state', 405],
      ['GET', '/__mock/reset', 405],
      ['POST', '/files/x.png', 405],
    ];
    for (const [method, path, status] of cases) {
      const result = await mock.call(method, path, { auth: 'none' });
      expect(result.status, `${method} ${path}`).toBe(status);
      expectErrorShape(result.json, status === 404 ? 'not_found' : 'method_not_allowed');
      expect(result.headers.get('x-request-id'), `${method} ${path}`).toMatch(/^req_/);
      if (status === 405) expect(result.headers.get('allow'), `${method} ${path}`).toMatch(/^(GET|POST)$/);
    }
  });

  it('an oversized body is refused the same way on every POST endpoint, with and without Content-Length', async () => {
    const big = JSON.stringify({ agentId: 'sprite-artist', prompt: 'y'.repeat(MAX_BODY_BYTES) });
    for (const [path, auth] of [...posts, ['/__mock/config', 'key'] as const]) {
      const sized = await mock.call('POST', path, { auth, raw: big });
      expect(sized.status, path).toBe(413);
      expectErrorShape(sized.json, 'payload_too_large');
      expect(sized.json.error.limit).toBe(MAX_BODY_BYTES);
      expect(sized.headers.get('x-request-id')).toMatch(/^req_/);
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 70; i++) controller.enqueue(new Uint8Array(1024).fill(32));
          controller.close();
        },
      });
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...(auth === 'key' ? { authorization: `Bearer ${mock.key}` } : { cookie: mock.cookie }),
      };
      const chunked = await fetch(`${mock.url}${path}`, { method: 'POST', headers, body: chunks, duplex: 'half' } as RequestInit);
      expect(chunked.status, path).toBe(413);
      expectErrorShape(await chunked.json(), 'payload_too_large');
    }
    // Exactly at the limit is not refused for its size.
    const head = '{"agentId":"sprite-artist","prompt":"x","pad":"';
    const atLimit = `${head}${'p'.repeat(MAX_BODY_BYTES - head.length - 2)}"}`;
    expect(Buffer.byteLength(atLimit)).toBe(MAX_BODY_BYTES);
    expect((await mock.call('POST', '/api/v1/generate', { raw: atLimit })).status).toBe(201);
    expect((await mock.state()).ledger).toHaveLength(1);
  });
});

describe('10. idempotency', () => {
  it('replays the original response for a repeated key and charges nothing again', async () => {
    const headers = { 'idempotency-key': 'abc-123' };
    const first = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' }, headers });
    const second = await mock.call('POST', '/api/v1/video', { body: { prompt: 'torch' }, headers });
    expect(second.status).toBe(first.status);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-credits-charged')).toBe('0');
    const reused = await mock.call('POST', '/api/v1/video', { body: { prompt: 'other' }, headers });
    expect(reused.status).toBe(422);
    expectErrorShape(reused.json, 'idempotency_key_reused');
    // Another credential has its own key space.
    const bySession = await mock.call('POST', '/api/v1/video', { auth: 'session', body: { prompt: 'torch' }, headers });
    expect(bySession.json.id).not.toBe(first.json.id);
    expect((await mock.state()).ledger.filter((e: { amount: number }) => e.amount === -180)).toHaveLength(2);
  });
});

describe('10. idempotency, further', () => {
  const post = (path: string, key: string, body: unknown, auth: 'key' | 'session' = 'key') =>
    mock.call('POST', path, { auth, body, headers: { 'idempotency-key': key } });
  const charges = async () => (await mock.state()).ledger.filter((entry: { amount: number }) => entry.amount < 0).length;

  it('every paid POST replays: same status, same body, replay header, no new charge', async () => {
    const cases: [string, unknown, 'key' | 'session'][] = [
      ['/api/v1/generate', GENERATE, 'key'],
      ['/api/ai/generate', GENERATE, 'session'],
      ['/api/v1/workflows/wf_sprite_sheet/run', { overrides: { character: 'a frog' } }, 'key'],
      ['/api/v1/video', { prompt: 'torch' }, 'session'],
    ];
    for (const [path, body, auth] of cases) {
      const first = await post(path, `k-${path}`, body, auth);
      const credits = (await mock.state()).credits;
      for (let i = 0; i < 3; i++) {
        const again = await post(path, `k-${path}`, body, auth);
        expect(again.status, path).toBe(first.status);
        expect(again.text, path).toBe(first.text);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.headers.get('x-credits-charged')).toBe('0');
        expect(again.headers.get('x-credits-remaining')).toBe(String(credits));
        expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      }
      expect(first.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await charges()).toBe(cases.length);
  });

  it('the same key with another body, path or workflow → 422, nothing charged', async () => {
    await post('/api/v1/generate', 'shared', GENERATE);
    for (const [path, body] of [
      ['/api/v1/generate', { ...GENERATE, prompt: 'another' }],
      ['/api/ai/generate', GENERATE],
      ['/api/v1/video', { prompt: 'rusty sword' }],
    ] as const) {
      const result = await post(path, 'shared', body, path.startsWith('/api/ai/') ? 'session' : 'key');
      if (path.startsWith('/api/ai/')) {
        // A session is another credential: its own key space, so this one is new.
        expect(result.status).toBe(201);
        continue;
      }
      expect(result.status, path).toBe(422);
      expectErrorShape(result.json, 'idempotency_key_reused');
    }
    await post('/api/v1/workflows/wf_tileset/run', 'run-key', {});
    const other = await post('/api/v1/workflows/wf_sprite_sheet/run', 'run-key', {});
    expect(other.status).toBe(422);
    expect(await charges()).toBe(3);
  });

  it('different credentials with the same key are independent', async () => {
    const { apiKey } = (await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string };
    const a = await post('/api/v1/generate', 'same', GENERATE);
    const b = await mock.call('POST', '/api/v1/generate', {
      auth: { authorization: `Bearer ${apiKey}` },
      body: GENERATE,
      headers: { 'idempotency-key': 'same' },
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.id).not.toBe(a.json.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await charges()).toBe(2);
  });

  it('a refused request is not remembered: after a 402, the same key goes through once paid for', async () => {
    await mock.config({ credits: 100 });
    const refused = await post('/api/v1/video', 'retry-me', { prompt: 'torch' });
    expect(refused.status).toBe(402);
    await mock.config({ credits: 500 });
    const accepted = await post('/api/v1/video', 'retry-me', { prompt: 'torch' });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('idempotent-replayed')).toBeNull();
    expect((await post('/api/v1/video', 'retry-me', { prompt: 'torch' })).json.id).toBe(accepted.json.id);
    expect((await mock.state()).credits).toBe(320);
  });

  it('concurrent requests with one key are charged once', async () => {
    await mock.config({ latencyMs: 30 });
    const results = await Promise.all(Array.from({ length: 4 }, () => post('/api/v1/video', 'race', { prompt: 'torch' })));
    await mock.config({ latencyMs: 0 });
    const fresh = results.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const other of results) {
      if (other === fresh[0]) continue;
      if (other.status === 409) expectErrorShape(other.json, 'idempotency_in_progress');
      else expect(other.json.id).toBe(fresh[0]!.json.id);
    }
    expect((await mock.state()).ledger).toHaveLength(1);
  });

  it("30 requests at once with one key run once on every paid endpoint (a duplicate's 409 leaves the marker)", async () => {
    const paid: [string, 'key' | 'session', unknown][] = [
      ['/api/v1/generate', 'key', { agentId: 'sprite-artist', prompt: 'coin' }],
      ['/api/v1/workflows/wf_tileset/run', 'key', {}],
      ['/api/v1/video', 'key', { prompt: 'torch' }],
      ['/api/ai/stream', 'session', { agentId: 'sprite-artist', prompt: 'coin' }],
      ['/api/ai/generate', 'session', { agentId: 'sprite-artist', prompt: 'coin' }],
    ];
    await mock.config({ latencyMs: 20, credits: 100_000 });
    for (const [path, auth, body] of paid) {
      const before = (await mock.state()).ledger.length;
      const key = `storm-${path}`;
      const results = await Promise.all(
        Array.from({ length: 30 }, () => mock.call('POST', path, { auth, body, headers: { 'idempotency-key': key } })),
      );
      expect(
        results.every((r) => r.status < 300 || r.status === 409),
        path,
      ).toBe(true);
      expect((await mock.state()).ledger.length - before, path).toBe(1);
    }
    await mock.config({ latencyMs: 0 });
  });

  it('a completed stream replays as the same event text, free', async () => {
    await mock.config({ streamStepMs: 1 });
    const first = await post('/api/ai/stream', 'stream-key', GENERATE, 'session');
    const again = await post('/api/ai/stream', 'stream-key', GENERATE, 'session');
    expect(again.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await charges()).toBe(1);
  });

  it('a stream cut off by the client is not stuck "in progress": a retry with its key replays the whole stream, free', async () => {
    await mock.config({ streamStepMs: 200 });
    const controller = new AbortController();
    const headers = { cookie: mock.cookie, 'content-type': 'application/json', 'idempotency-key': 'cut' };
    const first = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      signal: controller.signal,
      headers,
      body: JSON.stringify(GENERATE),
    });
    const { value } = await first.body!.getReader().read();
    const id = /"id":"(gen_\w+)"/.exec(new TextDecoder().decode(value))![1]!;
    controller.abort();
    let status = '';
    for (let i = 0; i < 50 && status !== 'cancelled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await mock.state()).streams[id]?.status;
    }
    expect(status).toBe('cancelled');
    const retry = await post('/api/ai/stream', 'cut', GENERATE, 'session');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toContain(`"id":"${id}"`);
    expect(retry.text).toMatch(/event: result\n[\s\S]*event: done\n/);
    expect(await charges()).toBe(1);
  });

  it('GETs ignore Idempotency-Key: each poll still advances', async () => {
    const { json: run } = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    const poll = () => mock.call('GET', `/api/v1/runs/${run.id}`, { headers: { 'idempotency-key': 'poll' } });
    expect((await poll()).json.completedNodes).toBe(1);
    expect((await poll()).json.completedNodes).toBe(2);
  });
});

describe('admin API', () => {
  it('resets to the seeded state, keeping keys valid, and validates config', async () => {
    await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    await mock.reset();
    const state = await mock.state();
    expect(state).toMatchObject({ credits: 1000, ledger: [], requests: 0 });
    expect((await mock.call('GET', '/api/v1/workflows')).status).toBe(200);
    for (const bad of [
      { credits: -1 },
      { videoOutcome: 'maybe' },
      { faults: { rate: 2 } },
      { faults: { kinds: ['boom'] } },
      { colour: 'red' },
    ]) {
      const response = await fetch(`${mock.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(bad),
      });
      expect(response.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await mock.config({ credits: 42, latencyMs: 0 })).toMatchObject({ credits: 42 });
  });
});

describe('admin API, further', () => {
  it('state: credits, ledger, config, requests (public API calls only), runs, videos, streams', async () => {
    const state = await mock.state();
    expect(Object.keys(state).sort()).toEqual(['config', 'credits', 'ledger', 'requests', 'runs', 'streams', 'videos']);
    expect(state.requests).toBe(0);
    await mock.call('GET', '/api/v1/workflows');
    await mock.call('GET', '/api/v1/workflows', { auth: 'none' });
    const { json } = await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    await fetch(json.output.url);
    await mock.call('GET', '/api/v1/nothing');
    await mock.state();
    await mock.config({});
    const after = await mock.state();
    expect(after.requests).toBe(3);
    expect(after.ledger.map((e: { amount: number; reason: string; at: string }) => [e.amount, e.reason, typeof e.at])).toEqual([
      [-1, 'list workflows', 'string'],
      [-10, `generate ${json.id}`, 'string'],
    ]);
  });

  it('reset: seeded balance and settings back, records gone, keys and sessions still valid', async () => {
    const { apiKey } = (await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string };
    await mock.config({
      credits: 7,
      latencyMs: 5,
      videoOutcome: 'fail',
      videoSteps: 5,
      streamStepMs: 99,
      faults: { rate: 0, kinds: ['500'] },
      idempotency: { maxKeys: 3 },
    });
    await mock.config({ credits: 500 });
    await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    await mock.call('POST', '/api/v1/video', { body: { prompt: 'x' } });
    const reset = await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
    expect(await reset.json()).toEqual({ credits: 1000 });
    const state = await mock.state();
    expect(state).toMatchObject({ credits: 1000, ledger: [], requests: 0, runs: [], videos: [], streams: {} });
    expect(state.config).toEqual({
      credits: 1000,
      videoOutcome: 'succeed',
      videoSteps: 2,
      videoPollAfterMs: 500,
      videoRefundDelayMs: 0,
      streamStepMs: 40,
      latencyMs: 0,
      faults: { rate: 0, kinds: ['500', '503', '429', 'reset', 'truncate'] },
      idempotency: { maxKeys: 10_000, maxAgeMs: 86_400_000 },
    });
    expect((await mock.call('GET', '/api/v1/workflows')).status).toBe(200);
    expect((await mock.call('GET', '/api/v1/workflows', { auth: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    expect((await mock.call('GET', '/api/ai/agents', { auth: 'session' })).status).toBe(200);
  });

  it('config merges, sets the balance without a ledger entry, and refuses bad settings with 400', async () => {
    const merged = await mock.config({ faults: { kinds: ['503'] } });
    expect(merged.faults).toEqual({ rate: 0, kinds: ['503'] });
    expect((await mock.config({ faults: { rate: 0.5 } })).faults).toEqual({ rate: 0.5, kinds: ['503'] });
    await mock.config({ faults: { rate: 0 } });
    expect(await mock.config({ credits: 42, seed: 7 })).toMatchObject({ credits: 42, seed: '7', latencyMs: 0, streamStepMs: 1 });
    expect(await mock.state()).toMatchObject({ credits: 42, ledger: [] });
    const bad: unknown[] = [
      { credits: -1 },
      { credits: 1.5 },
      { credits: '5' },
      { videoOutcome: 'maybe' },
      { videoSteps: 0 },
      { videoPollAfterMs: -1 },
      { streamStepMs: 'fast' },
      { latencyMs: null },
      { seed: { a: 1 } },
      { faults: { rate: 2 } },
      { faults: { rate: -0.1 } },
      { faults: { kinds: ['boom'] } },
      { faults: { kinds: '500' } },
      { faults: [] },
      { faults: null },
      { colour: 'red' },
      [],
      'x',
    ];
    for (const body of bad) {
      const response = await fetch(`${mock.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expectErrorShape(await response.json());
    }
    const malformed = await fetch(`${mock.url}/__mock/config`, { method: 'POST', body: '{' });
    expect(malformed.status).toBe(400);
    expectErrorShape(await malformed.json(), 'invalid_json');
    // Nothing of the refused settings stuck.
    expect((await mock.state()).config).toMatchObject({ credits: 42, videoOutcome: 'succeed', faults: { rate: 0, kinds: ['503'] } });
  });

  it('seed re-seeds the random choices: the same seed, the same fault sequence', async () => {
    const sequence = async () => {
      await mock.config({ seed: 'faults', faults: { rate: 0.5, kinds: ['500', '503'] } });
      const statuses = [];
      for (let i = 0; i < 16; i++) statuses.push((await mock.call('GET', '/api/v1/workflows', { auth: 'session' })).status);
      await mock.config({ faults: { rate: 0 } });
      return statuses;
    };
    const first = await sequence();
    expect(new Set(first)).toEqual(new Set([200, 500, 503]));
    expect(await sequence()).toEqual(first);
  });
});

describe('faults', () => {
  const once = async (kind: string) => {
    await mock.config({ faults: { rate: 1, kinds: [kind] } });
    try {
      return await fetch(`${mock.url}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(GENERATE),
      });
    } finally {
      await mock.config({ faults: { rate: 0 } });
    }
  };

  it('500, 503 and 429 (with Retry-After) strike before processing: nothing charged', async () => {
    for (const [kind, status] of [
      ['500', 500],
      ['503', 503],
      ['429', 429],
    ] as const) {
      const response = await once(kind);
      expect(response.status).toBe(status);
      expectErrorShape(await response.json());
      if (kind === '429') expect(response.headers.get('retry-after')).toBe('1');
    }
    expect((await mock.state()).ledger).toEqual([]);
  });

  it('reset drops the connection', async () => {
    await expect(once('reset')).rejects.toThrow();
    expect((await mock.state()).ledger).toEqual([]);
  });

  it('truncate cuts the body short after processing (and charging)', async () => {
    const response = await once('truncate');
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
    await expect(response.text()).rejects.toThrow();
    expect((await mock.state()).ledger).toHaveLength(1);
  });

  it('latencyMs delays every public response', async () => {
    await mock.config({ latencyMs: 150 });
    const started = Date.now();
    await mock.call('GET', '/api/v1/workflows');
    await mock.config({ latencyMs: 0 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe('faults, further', () => {
  const request = (path: string, init: RequestInit = {}) =>
    fetch(`${mock.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });
  const withFaults = async <T>(kinds: string[], run: () => Promise<T>): Promise<T> => {
    await mock.config({ faults: { rate: 1, kinds } });
    try {
      return await run();
    } finally {
      await mock.config({ faults: { rate: 0 } });
    }
  };

  it('strike every public endpoint at rate 1, never files or the admin API', async () => {
    const { json: gen } = await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    const { json: run } = await mock.call('POST', '/api/v1/workflows/wf_tileset/run');
    await withFaults(['503'], async () => {
      for (const [method, path, auth] of [
        ['GET', '/api/v1/workflows', 'key'],
        ['POST', '/api/v1/generate', 'key'],
        ['GET', `/api/v1/runs/${run.id}`, 'session'],
        ['POST', '/api/ai/stream', 'session'],
        ['GET', '/api/ai/agents', 'session'],
        ['GET', '/api/ai/agents', 'none'],
      ] as const) {
        const result = await mock.call(method, path, { auth, body: method === 'POST' ? GENERATE : undefined });
        expect(result.status, path).toBe(503);
        expectErrorShape(result.json, 'unavailable');
        expect(result.headers.get('retry-after')).toBe('0');
      }
      expect((await fetch(gen.output.url)).status).toBe(200);
      expect((await fetch(`${mock.url}/__mock/state`)).status).toBe(200);
    });
    expect((await mock.state()).runs[0].completedNodes).toBe(0);
  });

  it('truncate: the announced Content-Length is not delivered (read on a raw socket)', async () => {
    const { status, declared, received } = await withFaults(
      ['truncate'],
      () =>
        new Promise<{ status: number; declared: number; received: number }>((resolve, reject) => {
          const req = http.request(`${mock.url}/api/v1/workflows`, { headers: { authorization: `Bearer ${mock.key}` } }, (res) => {
            let received = 0;
            res.on('data', (chunk: Buffer) => (received += chunk.length));
            const done = () => resolve({ status: res.statusCode!, declared: Number(res.headers['content-length']), received });
            res.on('end', done);
            res.on('aborted', done);
            res.on('error', done);
            res.on('close', done);
          });
          req.on('error', reject);
          req.setTimeout(5_000, () => req.destroy(new Error('timeout')));
          req.end();
        }),
    );
    expect(status).toBe(200);
    expect(declared).toBeGreaterThan(100);
    expect(received).toBeLessThan(declared);
  });

  it('truncate after a charge: the same Idempotency-Key replays it for free once faults stop', async () => {
    const headers = { 'idempotency-key': 'lost-answer' };
    const body = JSON.stringify({ prompt: 'torch' });
    const lost = await withFaults(['truncate'], () => request('/api/v1/video', { method: 'POST', body, headers }));
    await expect(lost.text()).rejects.toThrow();
    const replay = await request('/api/v1/video', { method: 'POST', body, headers });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { id: string }).id).toMatch(/^vid_/);
    const state = await mock.state();
    expect(state.ledger).toHaveLength(1);
    expect(state.videos).toHaveLength(1);
  });

  it('faults also strike idempotent replays (and charge nothing)', async () => {
    const headers = { 'idempotency-key': 'replay-fault' };
    const body = JSON.stringify(GENERATE);
    expect((await request('/api/v1/generate', { method: 'POST', body, headers })).status).toBe(201);
    const faulted = await withFaults(['500'], () => request('/api/v1/generate', { method: 'POST', body, headers }));
    expect(faulted.status).toBe(500);
    expectErrorShape(await faulted.json(), 'internal_error');
    await expect(withFaults(['reset'], () => request('/api/v1/generate', { method: 'POST', body, headers }))).rejects.toThrow();
    expect((await request('/api/v1/generate', { method: 'POST', body, headers })).headers.get('idempotent-replayed')).toBe('true');
    expect((await mock.state()).ledger).toHaveLength(1);
  });

  it('rate 0 turns them off', async () => {
    await mock.config({ faults: { rate: 1, kinds: ['500'] } });
    await mock.config({ faults: { rate: 0 } });
    for (let i = 0; i < 5; i++) expect((await mock.call('GET', '/api/v1/workflows', { auth: 'session' })).status).toBe(200);
  });
});
