// The service document's statements, as the mock implements them: auth, credits, refunds,
// workflows, agents, bad input, idempotency, admin API and faults — over a real socket.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointPath, type EndpointName } from '../../src/api/endpoints.js';
import { API_KEY_PREFIX, MAX_BODY_BYTES, PRICES } from '../../src/mock/index.js';
import { MockState } from '../../src/mock/state.js';
import { expectErrorShape, startHarness, type Harness } from './helpers.js';

let mock: Harness;
beforeAll(async () => {
  mock = await startHarness({ seed: 'contract' });
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
  if (name === 'getRun') return endpointPath(name, { runId: (await mock.call('POST', endpointPath('runWorkflow', { id: 'wf_sprite_sheet' }))).json.id });
  if (name === 'getVideo') return endpointPath(name, { id: (await mock.call('POST', endpointPath('createVideo'), { body: { prompt: 'x' } })).json.id });
  return endpointPath(name);
}

describe('1. authentication of all nine endpoints', () => {
  const issueKey = async (): Promise<string> => ((await (await fetch(`${mock.url}/__mock/keys`, { method: 'POST' })).json()) as { apiKey: string }).apiKey;
  const revokeKey = async (apiKey: string): Promise<void> => {
    const response = await fetch(`${mock.url}/__mock/keys/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey }) });
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
      const attempt = (auth: 'key' | 'session' | 'none' | Record<string, string>) => mock.call(spec.method, path, { auth, body: bodies[name] });

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
    const unknown = await fetch(`${mock.url}/__mock/keys/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: `${API_KEY_PREFIX}${'f'.repeat(40)}` }) });
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
    const key = state.issueApiKey();
    expect(state.checkApiKey(key)).toMatchObject({ kind: 'apiKey' });
    expect(state.checkApiKey(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`)).toBe('unknown');
    expect(state.checkApiKey('sk_live_something_else_entirely')).toBe('malformed');
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
    expect(Buffer.from(await file.arrayBuffer()).subarray(0, 6).toString()).toBe('GIF89a');
  });
});

describe('5. workflows and runs', () => {
  it('lists at least three workflows of different lengths with overridable nodes', async () => {
    const { json } = await mock.call('GET', '/api/v1/workflows');
    expect(json.workflows.length).toBeGreaterThanOrEqual(3);
    expect(new Set(json.workflows.map((w: { nodes: unknown[] }) => w.nodes.length)).size).toBe(json.workflows.length);
    for (const workflow of json.workflows) {
      expect(workflow.overridableNodes.length).toBeGreaterThan(0);
      for (const node of workflow.nodes) expect(node).toEqual(expect.objectContaining({ id: expect.any(String), type: expect.any(String), label: expect.any(String) }));
    }
  });

  it('finishes a run of N nodes on the N-th poll, with each node output, and leaves it unchanged after', async () => {
    const { json: workflows } = await mock.call('GET', '/api/v1/workflows', { auth: 'session' });
    for (const workflow of workflows.workflows) {
      const { json: run } = await mock.call('POST', `/api/v1/workflows/${workflow.id}/run`, { auth: 'session', body: { overrides: { [workflow.overridableNodes[0]]: 'a frog knight' } } });
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
      const again = (await mock.call('GET', `/api/v1/runs/${run.id}`, { auth: 'session' })).json;
      expect({ ...again, updatedAt: 0 }).toEqual({ ...last, updatedAt: 0 });
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
    expect(json.agents.map((a: { id: string; kind: string }) => `${a.id}:${a.kind}`)).toEqual(['sprite-artist:image', 'tile-smith:image', 'icon-forge:image', 'motion-director:video']);
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
    expect((await mock.call('POST', '/api/v1/generate', { body: { agentId: 'motion-director', prompt: 'x' } })).json.error.code).toBe('wrong_agent_kind');
    expect((await mock.call('POST', '/api/v1/video', { body: { prompt: 'x', agentId: 'tile-smith' } })).json.error.code).toBe('wrong_agent_kind');
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
    ['an oversized body', '/api/v1/generate', { raw: JSON.stringify({ agentId: 'x', prompt: 'y'.repeat(MAX_BODY_BYTES) }) }, 413, 'payload_too_large'],
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
    const response = await fetch(`${mock.url}/api/v1/generate`, { method: 'POST', headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json' }, body: big, duplex: 'half' } as RequestInit);
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
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(auth === 'key' ? { authorization: `Bearer ${mock.key}` } : { cookie: mock.cookie }) };
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

describe('admin API', () => {
  it('resets to the seeded state, keeping keys valid, and validates config', async () => {
    await mock.call('POST', '/api/v1/generate', { body: GENERATE });
    await mock.reset();
    const state = await mock.state();
    expect(state).toMatchObject({ credits: 1000, ledger: [], requests: 0 });
    expect((await mock.call('GET', '/api/v1/workflows')).status).toBe(200);
    for (const bad of [{ credits: -1 }, { videoOutcome: 'maybe' }, { faults: { rate: 2 } }, { faults: { kinds: ['boom'] } }, { colour: 'red' }]) {
      const response = await fetch(`${mock.url}/__mock/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bad) });
      expect(response.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await mock.config({ credits: 42, latencyMs: 0 })).toMatchObject({ credits: 42 });
  });
});

describe('faults', () => {
  const once = async (kind: string) => {
    await mock.config({ faults: { rate: 1, kinds: [kind] } });
    try {
      return await fetch(`${mock.url}/api/v1/generate`, { method: 'POST', headers: { authorization: `Bearer ${mock.key}`, 'content-type': 'application/json' }, body: JSON.stringify(GENERATE) });
    } finally {
      await mock.config({ faults: { rate: 0 } });
    }
  };

  it('500, 503 and 429 (with Retry-After) strike before processing: nothing charged', async () => {
    for (const [kind, status] of [['500', 500], ['503', 503], ['429', 429]] as const) {
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
