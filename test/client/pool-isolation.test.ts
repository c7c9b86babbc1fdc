// A pooled client (connectionPool 'auto', its calls overlapping, so through undici's clients) whose
// service sends bytes past an answer's Content-Length on some answers: those calls fail with the
// client's protocol error, the others are answered, and the process lives — no uncaught error, no
// unhandled rejection — at 2, 16 and 64 calls in flight.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, UnexpectedResponseError, type AssetgenClient, type Generation } from '../../src/index.js';
import { KEY } from '../support/http.js';

interface RawRequest {
  head: string;
  body: string;
}

interface RawService {
  url: string;
  requests: RawRequest[];
  close: () => Promise<void>;
}

/**
 * A service on a raw socket: it parses each request (its head, then Content-Length bytes of body)
 * and answers it with the exact bytes `answer` gives, so an answer can carry more than it announces.
 */
async function rawService(answer: (request: RawRequest) => string): Promise<RawService> {
  const requests: RawRequest[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Bounded by the bytes in hand: each turn takes one whole request off the front, or stops.
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = { head, body: pending.subarray(end + 4, end + 4 + length).toString('utf8') };
        pending = pending.subarray(end + 4 + length);
        requests.push(request);
        socket.write(answer(request));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A generation named after its prompt; a prompt starting `excess` gets bytes past its Content-Length. */
function generationAnswer(request: RawRequest): string {
  const prompt = String((JSON.parse(request.body) as { prompt?: unknown }).prompt);
  const body = JSON.stringify({ id: `gen_${prompt}`, status: 'succeeded', output: { url: '/f.png' } });
  const head = `HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return head + body + (prompt.startsWith('excess') ? 'HTTP/1.1 200 OK\r\n\r\nand-then-some' : '');
}

// undici sends `host`, node:http `Host`: the header's case tells which client sent a request.
const viaPool = (request: RawRequest): boolean => /\r\nhost:/.test(request.head);

let service: RawService | undefined;
let client: AssetgenClient | undefined;
const processErrors: unknown[] = [];
const record = (error: unknown): void => void processErrors.push(error);
afterEach(async () => {
  await client?.close();
  await service?.close();
  service = client = undefined;
  process.off('uncaughtException', record);
  process.off('unhandledRejection', record);
  processErrors.length = 0;
});

describe('bytes past the announced end on a pooled client', () => {
  it.each([2, 16, 64])('at %i calls in flight: those calls fail, the others are answered, the process lives', async (inFlight) => {
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
    service = await rawService(generationAnswer);
    client = createClient({ baseUrl: service.url, apiKey: KEY });
    const generate = (prompt: string): Promise<Generation> => client!.generate({ agentId: 'a', prompt });

    // Two calls overlapping load the pool: from here on every call of this client goes through it.
    await Promise.all([generate('warm-0'), generate('warm-1')]);
    const before = service.requests.length;

    const prompts = Array.from({ length: inFlight }, (_, i) => (i % 2 ? `excess-${i}` : `clean-${i}`));
    const outcomes = await Promise.allSettled(prompts.map(generate));
    // Any error event left without a listener is raised on a later tick: give them two turns.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 0));

    expect(processErrors).toEqual([]);
    const batch = service.requests.slice(before);
    expect(batch).toHaveLength(inFlight);
    expect(batch.every(viaPool)).toBe(true);
    prompts.forEach((prompt, i) => {
      const outcome = outcomes[i]!;
      if (prompt.startsWith('excess')) {
        expect(outcome.status).toBe('rejected');
        const error = (outcome as PromiseRejectedResult).reason as Error;
        expect(error).toBeInstanceOf(UnexpectedResponseError);
        expect(error.message).toMatch(/more bytes than the answer announced/);
      } else {
        expect(outcome).toMatchObject({ status: 'fulfilled', value: { id: `gen_${prompt}` } });
      }
    });

    // The client goes on: its broken connections are made again for the next calls.
    const after = await Promise.all(Array.from({ length: inFlight }, (_, i) => generate(`after-${i}`)));
    expect(after.map((generation) => generation.id)).toEqual(Array.from({ length: inFlight }, (_, i) => `gen_after-${i}`));
    expect(processErrors).toEqual([]);
  });
});
