// docs/openapi.yaml describes what the mock really answers: real responses of every documented
// operation — success and error, bodies, documented headers, SSE event data — validated against
// the document with ajv's 2020-12 dialect, every operation of the document exercised, and every
// example of the document valid against its schema.
import fs from 'node:fs';
import { createParser } from 'eventsource-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { startMock, type MockHandle } from '../support/mock.js';

const spec = parse(fs.readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'openapi', components: spec.components });

const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
function compile(schema: unknown) {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/');
  let validate = compiled.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text));
    compiled.set(text, validate);
  }
  return validate;
}

/** Follows a local `$ref` through the document. */
function deref<T = any>(node: any): T {
  let current = node;
  for (let i = 0; current?.$ref && i < 10; i++) {
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((value: any, key: string) => value?.[key], spec);
  }
  return current;
}

/** The documented response of an operation for a status (or its `default`). */
function documented(path: string, method: string, status: number) {
  const operation = spec.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  const response = operation.responses[String(status)] ?? operation.responses.default;
  expect(response, `${method} ${path} documents ${status}`).toBeDefined();
  return deref(response);
}

const exercised = new Map<string, Set<number>>();

/** The event name → `data` schema of the stream's itemSchema (a oneOf over `event`), in order. */
function eventSchemas(itemSchema: any): Record<string, unknown> {
  return Object.fromEntries(itemSchema.oneOf.map((branch: any) => [branch.properties.event.const, branch.properties.data.contentSchema]));
}

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock.server.close();
});
beforeEach(async () => {
  await mock.reset();
  await mock.config({ videoPollAfterMs: 0, videoSteps: 1, streamStepMs: 1 });
});

/** Calls the mock and checks the answer against the document: status, media type, body, headers. */
async function conforms(
  docPath: string,
  method: string,
  actualPath: string,
  options: Parameters<MockHandle['call']>[2] = {},
): Promise<any> {
  const result = await mock.call(method, actualPath, options);
  const response = documented(docPath, method, result.status);
  const key = `${method.toUpperCase()} ${docPath}`;
  exercised.set(key, (exercised.get(key) ?? new Set()).add(result.status));
  const mediaType = result.headers.get('content-type')?.split(';')[0] ?? '';
  expect(Object.keys(response.content ?? {}), `${key} → ${result.status} documents ${mediaType}`).toContain(mediaType);
  if (mediaType === 'application/json') {
    const validate = compile(response.content[mediaType].schema);
    expect(validate(result.json), `${key} → ${result.status}: ${ajv.errorsText(validate.errors)}\n${result.text}`).toBe(true);
  }
  for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
    const value = result.headers.get(name);
    const { schema } = deref(header);
    // x-request-id and the credit headers are always sent; the others (Retry-After, Allow,
    // idempotent-replayed) only when they apply.
    if (['x-request-id', 'x-credits-charged', 'x-credits-remaining'].includes(name.toLowerCase()))
      expect(value, `${key} → ${result.status} sends ${name}`).not.toBeNull();
    if (value === null) continue;
    const typed = schema.type === 'integer' ? Number(value) : value;
    const validate = compile(schema);
    expect(validate(typed), `${key} → ${result.status} header ${name}: ${value} — ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
  return mediaType === 'application/json' ? result.json : result;
}

describe('docs/openapi.yaml', () => {
  it('is OpenAPI 3.2 with both security schemes, and every $ref resolves', () => {
    expect(spec.openapi).toMatch(/^3\.2\./);
    expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(spec.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'ag_session' });
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') refs.push(v);
          else walk(v);
        }
      }
    };
    walk(spec);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) expect(deref({ $ref: ref }), ref).toBeDefined();
    for (const [name, schema] of Object.entries(spec.components.schemas)) expect(() => compile(schema), name).not.toThrow();
  });

  it('documents every endpoint of ENDPOINTS with its credentials', () => {
    for (const endpoint of Object.values(ENDPOINTS)) {
      const docPath = endpoint.path.replace(/:(\w+)/g, '{$1}');
      const operation = spec.paths[docPath]?.[endpoint.method.toLowerCase()];
      expect(operation, `${endpoint.method} ${endpoint.path}`).toBeDefined();
      const security: Record<string, unknown>[] = operation.security ?? spec.security;
      const schemes = security.flatMap((requirement) => Object.keys(requirement)).sort();
      expect(schemes, endpoint.path).toEqual(endpoint.auth.map((auth) => (auth === 'apiKey' ? 'apiKey' : 'session')).sort());
    }
    for (const path of ['/files/{name}', '/__mock/state', '/__mock/reset', '/__mock/config', '/__mock/keys', '/__mock/keys/revoke'])
      expect(spec.paths[path], path).toBeDefined();
  });

  it('has schemas that reject wrong records (so a pass means something)', () => {
    const run = compile(documented('/api/v1/runs/{runId}', 'GET', 200).content['application/json'].schema);
    expect(run({ id: 'run_1', object: 'run', status: 'done' })).toBe(false);
    const broke = compile(documented('/api/v1/generate', 'POST', 402).content['application/json'].schema);
    expect(broke({ error: { code: 'insufficient_credits', message: 'x' } })).toBe(false);
    expect(broke({ error: { code: 'insufficient_credits', message: 'x', required: 10, balance: 0 } })).toBe(true);
    const unauthorized = compile(documented('/api/v1/generate', 'POST', 401).content['application/json'].schema);
    expect(unauthorized({ error: { code: 'nope', message: 'x' } })).toBe(false);
    const generation = compile(spec.components.schemas.Generation);
    expect(
      generation({
        id: 'gen_1',
        object: 'generation',
        agentId: 'a',
        prompt: 'p',
        status: 'succeeded',
        output: { url: 'http://x/y.png', contentType: 'image/png', width: 1, height: 1, bytes: 1 },
        credits: { charged: 10, remaining: 0 },
        createdAt: new Date().toISOString(),
        extra: 1,
      }),
    ).toBe(false);
  });

  it('matches real success responses of every endpoint', async () => {
    const gen = { agentId: 'sprite-artist', prompt: 'x' };
    const generation = await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { body: gen });
    const replay = await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { body: gen, headers: { 'idempotency-key': 'k1' } });
    await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { body: gen, headers: { 'idempotency-key': 'k1' } });
    expect(replay.id).toMatch(/^gen_/);
    await conforms('/api/ai/generate', 'POST', '/api/ai/generate', { auth: 'session', body: gen });
    await conforms('/api/ai/agents', 'GET', '/api/ai/agents', { auth: 'session' });
    await conforms('/api/v1/workflows', 'GET', '/api/v1/workflows');
    await conforms('/api/v1/workflows', 'GET', '/api/v1/workflows', { auth: 'session' });
    for (const id of ['wf_sprite_sheet', 'wf_tileset', 'wf_character_turnaround']) {
      const run = await conforms('/api/v1/workflows/{id}/run', 'POST', `/api/v1/workflows/${id}/run`, {
        body: id === 'wf_tileset' ? undefined : { overrides: { character: 'ink' } },
      });
      for (let i = 0; i < run.totalNodes + 1; i++)
        await conforms('/api/v1/runs/{runId}', 'GET', `/api/v1/runs/${run.id}`, { auth: i % 2 ? 'session' : 'key' });
    }
    await mock.config({ videoSteps: 2 });
    const video = await conforms('/api/v1/video', 'POST', '/api/v1/video', {
      body: { prompt: 'x', durationSeconds: 3, aspectRatio: '9:16' },
    });
    expect((await conforms('/api/v1/video/{id}', 'GET', `/api/v1/video/${video.id}`)).status).toBe('processing');
    const done = await conforms('/api/v1/video/{id}', 'GET', `/api/v1/video/${video.id}`);
    expect(done.status).toBe('succeeded');
    await mock.config({ videoOutcome: 'fail', videoSteps: 1 });
    const failing = await conforms('/api/v1/video', 'POST', '/api/v1/video', { auth: 'session', body: { prompt: 'x' } });
    expect((await conforms('/api/v1/video/{id}', 'GET', `/api/v1/video/${failing.id}`, { auth: 'session' })).status).toBe('failed');
    // Files: the documented media types.
    expect(
      (await conforms('/files/{name}', 'GET', new URL(generation.output.url).pathname, { auth: 'none' })).headers.get('content-type'),
    ).toBe('image/png');
    expect((await conforms('/files/{name}', 'GET', new URL(done.output.url).pathname, { auth: 'none' })).headers.get('content-type')).toBe(
      'image/gif',
    );
    // The admin API, with records of every kind in the state.
    await conforms('/api/ai/stream', 'POST', '/api/ai/stream', { auth: 'session', body: gen });
    const state = await conforms('/__mock/state', 'GET', '/__mock/state', { auth: 'none' });
    expect(state.runs.length).toBe(3);
    expect(state.videos.length).toBe(2);
    expect(Object.keys(state.streams)).toHaveLength(1);
    await conforms('/__mock/config', 'POST', '/__mock/config', { auth: 'none', body: { latencyMs: 0, seed: 'x' } });
    const { apiKey } = await conforms('/__mock/keys', 'POST', '/__mock/keys', { auth: 'none' });
    await conforms('/__mock/keys/revoke', 'POST', '/__mock/keys/revoke', { auth: 'none', body: { apiKey } });
    await conforms('/__mock/reset', 'POST', '/__mock/reset', { auth: 'none' });
    await conforms('/__mock/state', 'GET', '/__mock/state', { auth: 'none' });
  });

  it('the SSE stream: each event data matches its documented schema, in the documented order', async () => {
    const response = documented('/api/ai/stream', 'POST', 200);
    const itemSchema = deref(response.content['text/event-stream'].itemSchema);
    const schemas = eventSchemas(itemSchema);
    expect(Object.keys(schemas)).toEqual(['start', 'progress', 'result', 'done']);
    const result = await conforms('/api/ai/stream', 'POST', '/api/ai/stream', {
      auth: 'session',
      body: { agentId: 'icon-forge', prompt: 'coin' },
    });
    const events: { event: string; data: string }[] = [];
    const parser = createParser({ onEvent: (event) => events.push({ event: event.event ?? 'message', data: event.data }) });
    parser.feed(result.text);
    expect(events.length).toBeGreaterThanOrEqual(4);
    for (const event of events) {
      expect(Object.keys(schemas), event.event).toContain(event.event);
      expect(compile(itemSchema)(event), `${event.event} as an item of the stream`).toBe(true);
      const validate = compile(schemas[event.event]);
      expect(validate(JSON.parse(event.data)), `${event.event}: ${ajv.errorsText(validate.errors)} ${event.data}`).toBe(true);
    }
    const order = [...new Set(events.map((e) => e.event))];
    expect(order).toEqual(Object.keys(schemas));
  });

  it('matches real error responses of every endpoint', async () => {
    const gen = { agentId: 'sprite-artist', prompt: 'x' };
    const big = JSON.stringify({ p: 'x'.repeat(70_000) });
    for (const [docPath, path, auth] of [
      ['/api/v1/generate', '/api/v1/generate', 'key'],
      ['/api/ai/generate', '/api/ai/generate', 'session'],
      ['/api/ai/stream', '/api/ai/stream', 'session'],
    ] as const) {
      await conforms(docPath, 'POST', path, { auth, raw: '{' });
      await conforms(docPath, 'POST', path, { auth, body: { agentId: 'sprite-artist' } });
      await conforms(docPath, 'POST', path, { auth: 'none', body: gen });
      await conforms(docPath, 'POST', path, { auth: auth === 'key' ? 'session' : 'key', body: gen });
      await conforms(docPath, 'POST', path, { auth, body: { agentId: 'nobody', prompt: 'x' } });
      await conforms(docPath, 'POST', path, { auth, body: { agentId: 'motion-director', prompt: 'x' } });
      await conforms(docPath, 'POST', path, { auth, raw: big });
      await conforms(docPath, 'POST', path, { auth, body: gen, headers: { 'idempotency-key': `e-${path}` } });
      await conforms(docPath, 'POST', path, { auth, body: { ...gen, prompt: 'y' }, headers: { 'idempotency-key': `e-${path}` } });
    }
    // 409: the same key while a stream with it is still running.
    await mock.config({ streamStepMs: 200 });
    const controller = new AbortController();
    const running = await fetch(`${mock.url}/api/ai/stream`, {
      method: 'POST',
      signal: controller.signal,
      body: JSON.stringify(gen),
      headers: { cookie: mock.cookie, 'content-type': 'application/json', 'idempotency-key': 'streaming' },
    });
    await running.body!.getReader().read();
    const busy = await conforms('/api/ai/stream', 'POST', '/api/ai/stream', {
      auth: 'session',
      body: gen,
      headers: { 'idempotency-key': 'streaming' },
    });
    expect(busy.error.code).toBe('idempotency_in_progress');
    controller.abort();
    await mock.config({ streamStepMs: 1 });
    await conforms('/api/v1/workflows', 'GET', '/api/v1/workflows', { auth: { authorization: 'Bearer agk_nope' } });
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_tileset/run', { body: { overrides: { palette: 'x' } } });
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_tileset/run', { raw: big });
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/nope/run');
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_tileset/run', { auth: 'none' });
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_tileset/run', { headers: { 'idempotency-key': 'r' } });
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_sprite_sheet/run', { headers: { 'idempotency-key': 'r' } });
    await conforms('/api/v1/runs/{runId}', 'GET', '/api/v1/runs/nope');
    await conforms('/api/v1/runs/{runId}', 'GET', '/api/v1/runs/nope', { auth: 'none' });
    await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'x', aspectRatio: '4:3' } });
    await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'x', agentId: 'nobody' } });
    await conforms('/api/v1/video', 'POST', '/api/v1/video', { auth: 'none', body: { prompt: 'x' } });
    await conforms('/api/v1/video', 'POST', '/api/v1/video', { raw: big });
    await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'x' }, headers: { 'idempotency-key': 'v' } });
    await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'y' }, headers: { 'idempotency-key': 'v' } });
    await conforms('/api/v1/video/{id}', 'GET', '/api/v1/video/nope');
    await conforms('/api/v1/video/{id}', 'GET', '/api/v1/video/nope', { auth: 'none' });
    await conforms('/api/ai/agents', 'GET', '/api/ai/agents');
    await conforms('/api/ai/agents', 'GET', '/api/ai/agents', { auth: 'none' });
    await conforms('/files/{name}', 'GET', '/files/nope.png', { auth: 'none' });
    await conforms('/files/{name}', 'GET', '/files/%ZZ', { auth: 'none' });
    await conforms('/__mock/config', 'POST', '/__mock/config', { auth: 'none', body: { credits: 'lots' } });
    await conforms('/__mock/config', 'POST', '/__mock/config', { auth: 'none', raw: big });
    await conforms('/__mock/keys/revoke', 'POST', '/__mock/keys/revoke', { auth: 'none', body: { apiKey: 'agk_nope' } });
    await conforms('/__mock/keys/revoke', 'POST', '/__mock/keys/revoke', { auth: 'none', body: {} });
    // 405 on the admin API: a known path with another method.
    for (const [docPath, method] of [
      ['/__mock/state', 'GET'],
      ['/__mock/reset', 'POST'],
      ['/__mock/config', 'POST'],
      ['/__mock/keys', 'POST'],
      ['/__mock/keys/revoke', 'POST'],
    ] as const) {
      const result = await mock.call(method === 'GET' ? 'DELETE' : 'PUT', docPath, { auth: 'none' });
      expect(result.status, docPath).toBe(405);
      const validate = compile(documented(docPath, method, 405).content['application/json'].schema);
      expect(validate(result.json), ajv.errorsText(validate.errors)).toBe(true);
      expect(result.headers.get('allow')).toBe(method);
      exercised.get(`${method} ${docPath}`)!.add(405);
    }
    // 402 on every paid endpoint.
    await mock.config({ credits: 0 });
    await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { body: gen });
    await conforms('/api/ai/generate', 'POST', '/api/ai/generate', { auth: 'session', body: gen });
    await conforms('/api/ai/stream', 'POST', '/api/ai/stream', { auth: 'session', body: gen });
    await conforms('/api/v1/workflows', 'GET', '/api/v1/workflows');
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_tileset/run');
    await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'x' } });
    await mock.config({ credits: 1000 });
    const { id: runId } = await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_tileset/run', { auth: 'session' });
    const { id: videoId } = await conforms('/api/v1/video', 'POST', '/api/v1/video', { auth: 'session', body: { prompt: 'x' } });
    await mock.config({ credits: 0 });
    await conforms('/api/v1/runs/{runId}', 'GET', `/api/v1/runs/${runId}`);
    await conforms('/api/v1/video/{id}', 'GET', `/api/v1/video/${videoId}`);
  });

  it('matches injected faults and wrong methods (the documented default response)', async () => {
    for (const kind of ['500', '503', '429']) {
      await mock.config({ faults: { rate: 1, kinds: [kind] } });
      for (const endpoint of Object.values(ENDPOINTS)) {
        const docPath = endpoint.path.replace(/:(\w+)/g, '{$1}');
        const path = endpoint.path.replace(/:(\w+)/g, 'x');
        const error = await conforms(docPath, endpoint.method, path, { body: endpoint.method === 'POST' ? {} : undefined });
        expect(error.error.code).toBe({ '500': 'internal_error', '503': 'unavailable', '429': 'rate_limited' }[kind]);
      }
    }
    await mock.config({ faults: { rate: 0 } });
    for (const endpoint of Object.values(ENDPOINTS)) {
      const docPath = endpoint.path.replace(/:(\w+)/g, '{$1}');
      const path = endpoint.path.replace(/:(\w+)/g, 'x');
      const wrong = endpoint.method === 'GET' ? 'DELETE' : 'PUT';
      const result = await mock.call(wrong, path);
      expect(result.status).toBe(405);
      const validate = compile(
        deref(spec.paths[docPath][endpoint.method.toLowerCase()].responses.default).content['application/json'].schema,
      );
      expect(validate(result.json), ajv.errorsText(validate.errors)).toBe(true);
      expect(result.headers.get('allow')).toBe(endpoint.method);
    }
    // Unknown routes are not in the document; their body is still the Error schema.
    const missing = await mock.call('GET', '/api/v1/nothing');
    expect(compile(spec.components.schemas.Error)(missing.json)).toBe(true);
  });

  it('every request and response body has an example, valid against its schema (SSE: each event)', () => {
    let checked = 0;
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const bodies: [string, any][] = [];
        if (operation.requestBody) bodies.push(['request', deref(operation.requestBody)]);
        for (const [status, response] of Object.entries<any>(operation.responses)) bodies.push([status, deref(response)]);
        for (const [where, body] of bodies) {
          for (const [mediaType, media] of Object.entries<any>(body.content ?? {})) {
            const key = `${method.toUpperCase()} ${path} ${where} ${mediaType}`;
            // The generated files' bytes have no useful text example.
            if (mediaType.startsWith('image/')) continue;
            const examples = media.example !== undefined ? [media.example] : Object.values<any>(media.examples ?? {}).map((e) => e.value);
            expect(examples.length, `${key} has an example`).toBeGreaterThan(0);
            for (const example of examples) {
              if (mediaType === 'text/event-stream') {
                const itemSchema = deref(media.itemSchema);
                const schemas = eventSchemas(itemSchema);
                const events: { event: string; data: string }[] = [];
                createParser({ onEvent: (e) => events.push({ event: e.event ?? 'message', data: e.data }) }).feed(example);
                expect(events.map((e) => e.event)).toEqual(Object.keys(schemas));
                for (const event of events) {
                  expect(compile(itemSchema)(event), key).toBe(true);
                  const validate = compile(schemas[event.event]);
                  expect(validate(JSON.parse(event.data)), `${key} ${event.event}: ${ajv.errorsText(validate.errors)}`).toBe(true);
                }
              } else {
                const validate = compile(media.schema);
                expect(validate(example), `${key}: ${ajv.errorsText(validate.errors)}`).toBe(true);
              }
              checked += 1;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    // The two video endings a client must handle are shown, and they are what the schema allows.
    const video = documented('/api/v1/video/{id}', 'GET', 200).content['application/json'].examples;
    expect(video.failedNotYetRefunded.value).toMatchObject({ status: 'failed', refunded: false, refund: null });
    expect(video.succeededWithoutOutput.value).toMatchObject({ status: 'succeeded', output: null, refunded: false });
    const schema = compile(spec.components.schemas.VideoJob);
    expect(schema({ ...video.failedRefunded.value, refund: null }), 'refunded true needs a refund').toBe(false);
    expect(schema({ ...video.processing.value, refunded: true }), 'an unfinished job is not refunded').toBe(false);
  });

  it("every path parameter has an example, the record the operation's own examples show", async () => {
    const examples: Record<string, string> = {};
    for (const [path, item] of Object.entries<any>(spec.paths))
      for (const [method, operation] of Object.entries<any>(item))
        for (const parameter of (operation.parameters ?? []).map(deref).filter((p: any) => p.in === 'path')) {
          expect(parameter.example, `${method.toUpperCase()} ${path} {${parameter.name}}`).toEqual(expect.any(String));
          examples[`${method.toUpperCase()} ${path}`] = parameter.example;
        }
    expect(Object.keys(examples).sort()).toEqual([
      'GET /api/v1/runs/{runId}',
      'GET /api/v1/video/{id}',
      'GET /files/{name}',
      'POST /api/v1/workflows/{id}/run',
    ]);
    const json = (path: string, method: string, status: number) => documented(path, method, status).content['application/json'];
    expect(json('/api/v1/runs/{runId}', 'GET', 200).example.id).toBe(examples['GET /api/v1/runs/{runId}']);
    expect(json('/api/v1/video/{id}', 'GET', 200).examples.processing.value.id).toBe(examples['GET /api/v1/video/{id}']);
    expect(JSON.stringify(spec.components)).toContain(`/files/${examples['GET /files/{name}']}`);
    // A tool that sends the path's example with the body's starts a run of the seeded workflow whose
    // node the body overrides (another workflow would refuse the node: 400 invalid_override).
    const workflowId = examples['POST /api/v1/workflows/{id}/run']!;
    const run = spec.paths['/api/v1/workflows/{id}/run'].post;
    expect(json('/api/v1/workflows/{id}/run', 'POST', 201).example.workflowId).toBe(workflowId);
    const body = deref(run.requestBody).content['application/json'].example;
    const started = await conforms('/api/v1/workflows/{id}/run', 'POST', `/api/v1/workflows/${workflowId}/run`, { body });
    expect(started).toMatchObject({ workflowId, status: 'queued' });
  });

  it('every documented operation was exercised: a success and every documented 4xx', () => {
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const key = `${method.toUpperCase()} ${path}`;
        const seen = exercised.get(key) ?? new Set<number>();
        const statuses = Object.keys(operation.responses)
          .filter((s) => s !== 'default')
          .map(Number);
        for (const status of statuses) expect(seen.has(status), `${key} → ${status} was checked against a real response`).toBe(true);
      }
    }
  });
});
