// Requests no well-behaved client sends, written to a raw socket: each is a 4xx JSON error, never a
// 500, and the server goes on serving.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock({});
});
afterAll(async () => {
  await mock.close();
});

/** Sends `head` as is and resolves with the status code and the body (bounded: 5 s). */
function raw(head: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(mock.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
    let text = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('malformed requests on a raw socket', () => {
  const auth = () => `Authorization: Bearer ${mock.apiKey}\r\n`;
  const cases: [string, () => string][] = [
    ['OPTIONS *', () => 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'],
    [
      'an absolute-form target',
      () => `GET http://elsewhere.test/api/v1/workflows HTTP/1.1\r\nHost: localhost\r\n${auth()}Connection: close\r\n\r\n`,
    ],
    ['a Host header that is not a host', () => `GET /api/v1/workflows HTTP/1.1\r\nHost: a b/c?d\r\n${auth()}Connection: close\r\n\r\n`],
    ['a Host header with a user', () => `GET /api/v1/workflows HTTP/1.1\r\nHost: user@localhost\r\n${auth()}Connection: close\r\n\r\n`],
  ];
  for (const [name, head] of cases) {
    it(`${name} → 400 invalid_request`, async () => {
      const answer = await raw(head());
      expect(answer.status).toBe(400);
      expectErrorShape(JSON.parse(answer.body), 'invalid_request');
    });
  }

  it('keeps serving well-formed requests afterwards', async () => {
    const answer = await raw(`GET /api/v1/workflows HTTP/1.1\r\nHost: localhost\r\n${auth()}Connection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
  });
});
