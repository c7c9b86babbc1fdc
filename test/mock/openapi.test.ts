// docs/openapi.yaml describes what the mock really answers: real responses of every endpoint,
// success and error, validated against the document's schemas.
import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { startHarness, type Harness } from './helpers.js';

const spec = parse(fs.readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'openapi', components: spec.components });

/** The JSON schema of a documented response, with `#/components` refs resolved through ajv. */
function validatorFor(path: string, method: string, status: number) {
  const operation = spec.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  let response = operation.responses[String(status)];
  expect(response, `${method} ${path} documents ${status}`).toBeDefined();
  if (response.$ref) response = spec.components.responses[response.$ref.split('/').pop()];
  const schema = response.content['application/json'].schema;
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
  return ajv.compile(rewritten);
}

let mock: Harness;
beforeAll(async () => {
  mock = await startHarness();
  await mock.config({ videoPollAfterMs: 0, videoSteps: 1 });
});
afterAll(async () => {
  await mock.server.close();
});

async function conforms(docPath: string, method: string, actualPath: string, options: Parameters<Harness['call']>[2] = {}): Promise<any> {
  const result = await mock.call(method, actualPath, options);
  const validate = validatorFor(docPath, method, result.status);
  const ok = validate(result.json);
  expect(ok, `${method} ${actualPath} → ${result.status}: ${ajv.errorsText(validate.errors)}\n${result.text}`).toBe(true);
  return result.json;
}

describe('docs/openapi.yaml', () => {
  it('documents every endpoint of the service', () => {
    for (const endpoint of Object.values(ENDPOINTS)) {
      const docPath = endpoint.path.replace(/:(\w+)/g, '{$1}');
      expect(spec.paths[docPath]?.[endpoint.method.toLowerCase()], `${endpoint.method} ${endpoint.path}`).toBeDefined();
    }
  });

  it('has schemas that reject a wrong record (so a pass means something)', () => {
    const validate = validatorFor('/api/v1/runs/{runId}', 'GET', 200);
    expect(validate({ id: 'run_1', object: 'run', status: 'done' })).toBe(false);
    expect(validatorFor('/api/v1/generate', 'POST', 402)({ error: { code: 'insufficient_credits', message: 'x' } })).toBe(false);
  });

  it('matches real success responses of every endpoint', async () => {
    const gen = { agentId: 'sprite-artist', prompt: 'x' };
    await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { body: gen });
    await conforms('/api/ai/generate', 'POST', '/api/ai/generate', { auth: 'session', body: gen });
    await conforms('/api/ai/agents', 'GET', '/api/ai/agents', { auth: 'session' });
    await conforms('/api/v1/workflows', 'GET', '/api/v1/workflows');
    const run = await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_character_turnaround/run', { body: { overrides: { style: 'ink' } } });
    for (let i = 0; i < run.totalNodes + 1; i++) await conforms('/api/v1/runs/{runId}', 'GET', `/api/v1/runs/${run.id}`);
    const video = await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'x' } });
    await conforms('/api/v1/video/{id}', 'GET', `/api/v1/video/${video.id}`);
    await mock.config({ videoOutcome: 'fail' });
    const failing = await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'x' } });
    expect((await conforms('/api/v1/video/{id}', 'GET', `/api/v1/video/${failing.id}`)).status).toBe('failed');
    await mock.config({ videoOutcome: 'succeed' });
    await conforms('/__mock/state', 'GET', '/__mock/state', { auth: 'none' });
    await conforms('/__mock/config', 'POST', '/__mock/config', { auth: 'none', body: { latencyMs: 0 } });
    await conforms('/__mock/keys', 'POST', '/__mock/keys', { auth: 'none' });
  });

  it('matches real error responses', async () => {
    await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { raw: '{' });
    await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { auth: 'none', body: {} });
    await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { body: { agentId: 'nobody', prompt: 'x' } });
    await conforms('/api/v1/generate', 'POST', '/api/v1/generate', { raw: JSON.stringify({ p: 'x'.repeat(70_000) }) });
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/wf_tileset/run', { body: { overrides: { palette: 'x' } } });
    await conforms('/api/v1/workflows/{id}/run', 'POST', '/api/v1/workflows/nope/run');
    await conforms('/api/v1/runs/{runId}', 'GET', '/api/v1/runs/nope');
    await conforms('/api/v1/video/{id}', 'GET', '/api/v1/video/nope');
    await conforms('/api/ai/agents', 'GET', '/api/ai/agents');
    await conforms('/__mock/config', 'POST', '/__mock/config', { auth: 'none', body: { credits: 'lots' } });
    await mock.config({ credits: 1 });
    const broke = await conforms('/api/v1/video', 'POST', '/api/v1/video', { body: { prompt: 'x' } });
    expect(broke.error.code).toBe('insufficient_credits');
    await mock.reset();
  });
});
