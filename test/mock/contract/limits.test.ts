// docs/mock-server.md "Limits": bodies over 64 KiB get 413 on every POST endpoint, whether they
// announce their length or arrive chunked; a body exactly at the limit is accepted.
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../src/mock/index.js';
import { expectErrorShape } from '../../support/mock.js';
import { POST_ENDPOINTS, useContractMock } from './harness.js';

const mock = useContractMock();

describe('body size limit', () => {
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

  it('an oversized body is refused the same way on every POST endpoint, with and without Content-Length', async () => {
    const big = JSON.stringify({ agentId: 'sprite-artist', prompt: 'y'.repeat(MAX_BODY_BYTES) });
    for (const [path, auth] of [...POST_ENDPOINTS, ['/__mock/config', 'key'] as const]) {
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
