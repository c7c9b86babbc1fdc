// docs/mock-server.md "Errors": bad input of every kind gets a 4xx JSON error with a request id,
// never a 5xx, and is not charged.
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../src/mock/index.js';
import { expectErrorShape } from '../../support/mock.js';
import { POST_ENDPOINTS, useContractMock } from './harness.js';

const mock = useContractMock();

describe('bad input never yields a 5xx', () => {
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
  for (const [path, auth] of POST_ENDPOINTS) {
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
});
