import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  createClient,
  InsufficientCreditsError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnexpectedResponseError,
  InvalidArgumentError,
  type AssetgenClient,
  type RequestTrace,
  type ResponseTrace,
  type RetryTrace,
} from '../../src/index.js';
import { FAST, json, KEY, reset, startServer, truncated, type TestServer } from '../support/http.js';

const generation = (id = 'gen_1') => ({
  id,
  status: 'succeeded',
  output: { url: `/files/${id}.png`, contentType: 'image/png' },
  credits: { charged: 10, remaining: 990 },
});

let server: TestServer | undefined;
let client: AssetgenClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

describe('requests', () => {
  it('sends the key, JSON body and an idempotency key; reads the record, request id and credits', async () => {
    server = await startServer((_req, res) =>
      json(res, 201, generation(), { 'x-request-id': 'req_abc', 'x-credits-charged': '10', 'x-credits-remaining': '990' }),
    );
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const result = await client.generate({ agentId: 'sprite-artist', prompt: 'a sword' });
    expect(result).toMatchObject({
      id: 'gen_1',
      status: 'succeeded',
      assetUrl: `${server.url}/files/gen_1.png`,
      contentType: 'image/png',
      requestId: 'req_abc',
      credits: { charged: 10, remaining: 990 },
    });
    const [seen] = server.requests;
    expect(seen).toMatchObject({ method: 'POST', url: '/api/v1/generate' });
    expect(seen!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen!.headers['content-type']).toBe('application/json');
    expect(seen!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen!.headers.cookie).toBeUndefined();
    expect(JSON.parse(seen!.body)).toEqual({ agentId: 'sprite-artist', prompt: 'a sword' });
  });

  it('uses the session endpoint and cookie when there is no key', async () => {
    server = await startServer((_req, res) => json(res, 200, generation()));
    client = createClient({ baseUrl: server.url, sessionCookie: 'tok123' });
    await client.generate({ agentId: 'a', prompt: 'p' });
    expect(server.requests[0]).toMatchObject({ url: '/api/ai/generate' });
    expect(server.requests[0]!.headers.cookie).toBe('ag_session=tok123');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('keeps a path prefix of the base URL', async () => {
    server = await startServer((_req, res) => json(res, 200, { workflows: [] }));
    client = createClient({ baseUrl: `${server.url}/svc`, apiKey: KEY });
    await client.listWorkflows();
    expect(server.requests[0]!.url).toBe('/svc/api/v1/workflows');
  });

  it('refuses session-only endpoints without a session, and any call without credentials', async () => {
    client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY });
    await expect(client.listAgents()).rejects.toMatchObject({ name: 'MissingCredentialsError' });
    expect(() => client!.stream({ agentId: 'a', prompt: 'p' })).toThrow(/session cookie/);
    const bare = createClient({ baseUrl: 'http://127.0.0.1:9' });
    await expect(bare.generate({ agentId: 'a', prompt: 'p' })).rejects.toMatchObject({ name: 'MissingCredentialsError' });
    await bare.close();
  });

  it('refuses credentials over plain http to a non-loopback host unless allowed', () => {
    expect(() => createClient({ baseUrl: 'http://assets.example.com', apiKey: KEY })).toThrow(InvalidArgumentError);
    // The SDK's own option, never a CLI flag (the CLI words its own hint: test/commands/plain-http-words.test.ts).
    expect(() => createClient({ baseUrl: 'http://assets.example.com', apiKey: KEY })).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('`allowInsecureHttp: true`') }),
    );
    expect(() => createClient({ baseUrl: 'http://assets.example.com', sessionCookie: 's' })).toThrow(InvalidArgumentError);
    for (const baseUrl of ['http://localhost:1', 'http://127.1.2.3:1', 'http://[::1]:1', 'https://assets.example.com']) {
      expect(() => createClient({ baseUrl, apiKey: KEY })).not.toThrow();
    }
    expect(() => createClient({ baseUrl: 'http://assets.example.com', apiKey: KEY, allowInsecureHttp: true })).not.toThrow();
    expect(() => createClient({ baseUrl: 'http://assets.example.com' })).not.toThrow();
    expect(() => createClient({ baseUrl: 'ftp://x' })).toThrow(InvalidArgumentError);
  });

  it('traces requests and responses with secrets masked', async () => {
    server = await startServer((_req, res) =>
      json(res, 200, { workflows: [] }, { 'x-request-id': 'req_t', 'set-cookie': 'ag_session=supersecretvalue123' }),
    );
    const requests: RequestTrace[] = [];
    const responses: ResponseTrace[] = [];
    client = createClient({
      baseUrl: server.url,
      apiKey: KEY,
      sessionCookie: 'ag_session=supersecretvalue123',
      onRequest: (i) => requests.push(i),
      onResponse: (i) => responses.push(i),
    });
    await client.listWorkflows(); // a list goes with the session (free), see credentialFor
    await client.getRun('run_1').catch(() => {});
    const keyOnly = createClient({ baseUrl: server.url, apiKey: KEY, onRequest: (i) => requests.push(i) });
    await keyOnly.listWorkflows();
    await keyOnly.close();
    const traced = JSON.stringify([requests, responses]);
    expect(traced).not.toContain(KEY);
    expect(traced).not.toContain('supersecretvalue123');
    expect(requests[0]).toMatchObject({ method: 'GET', attempt: 1 });
    expect(requests[0]!.headers.cookie).toBeDefined();
    expect(requests.at(-1)!.headers.authorization).toMatch(/^Bearer agk_test_…cdef$/);
    expect(responses[0]).toMatchObject({ status: 200, requestId: 'req_t' });
  });
});

describe('base URL', () => {
  it('normalises the base URL and joins endpoint paths under it', () => {
    expect(createClient({ baseUrl: 'https://svc.example/' }).baseUrl).toBe('https://svc.example');
    expect(createClient({ baseUrl: 'https://svc.example/prefix/' }).baseUrl).toBe('https://svc.example/prefix');
    expect(() => createClient({ baseUrl: 'not a url' })).toThrow(InvalidArgumentError);
  });

  it('does not follow a redirect on an API call', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/api/v1/workflows' });
      res.end();
    });
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    await expect(client.listWorkflows()).rejects.toBeInstanceOf(UnexpectedResponseError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('errors', () => {
  const cases: [number, unknown, new (...args: never[]) => Error, RegExp][] = [
    [
      400,
      { error: { code: 'invalid_request', message: 'prompt is required', requestId: 'req_b' } },
      InvalidRequestError,
      /prompt is required/,
    ],
    [401, { error: { code: 'invalid_credentials', message: 'Unknown key' } }, AuthenticationError, /Unknown key/],
    [404, { message: 'no such agent' }, NotFoundError, /no such agent/],
    [422, { error: 'idempotency key reused' }, InvalidRequestError, /idempotency key reused/],
  ];
  for (const [status, body, type, message] of cases) {
    it(`maps ${status}`, async () => {
      server = await startServer((_req, res) => json(res, status, body, { 'x-request-id': 'req_e' }));
      client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
      const error = await client.generate({ agentId: 'a', prompt: 'p' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ status, requestId: 'req_e', message: expect.stringMatching(message) });
      expect(server.requests).toHaveLength(1); // 4xx are not retried
    });
  }

  it('maps 402 with required and balance', async () => {
    server = await startServer((_req, res) =>
      json(res, 402, {
        error: {
          code: 'insufficient_credits',
          message: 'Not enough credits: this needs 180, the balance is 42.',
          required: 180,
          balance: 42,
          requestId: 'req_402',
        },
      }),
    );
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const error = await client.createVideo({ prompt: 'p' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientCreditsError);
    expect(error).toMatchObject({
      required: 180,
      balance: 42,
      requestId: 'req_402',
      code: 'insufficient_credits',
      message: 'Not enough credits: this needs 180, the balance is 42.',
    });
  });

  it('keeps a plain-text error body as the message', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('forbidden here');
    });
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    await expect(client.listWorkflows()).rejects.toMatchObject({
      name: 'AuthenticationError',
      message: 'forbidden here',
      body: 'forbidden here',
    });
  });

  it('reports a 2xx body it cannot read with the raw body', async () => {
    server = await startServer((_req, res) => json(res, 200, { hello: 'world' }));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const error = await client.generate({ agentId: 'a', prompt: 'p' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).raw).toEqual({ hello: 'world' });
  });

  it('reports a refused connection as ConnectionError after the retries', async () => {
    const probe = await startServer(() => {});
    const url = probe.url;
    await probe.close();
    client = createClient({ baseUrl: url, apiKey: KEY, maxRetries: 1, ...FAST });
    await expect(client.listWorkflows()).rejects.toBeInstanceOf(ConnectionError);
  });
});

describe('retries', () => {
  it('retries a charged POST on 500, reset and truncation with the same idempotency key', async () => {
    const script = [
      (res: Parameters<typeof json>[0]) => json(res, 500, { error: { message: 'boom' } }),
      reset,
      (res: Parameters<typeof json>[0]) => truncated(res, 201, generation()),
    ];
    server = await startServer((_req, res, _seen, i) => (script[i] ? script[i]!(res) : json(res, 201, generation())));
    const retries: RetryTrace[] = [];
    client = createClient({ baseUrl: server.url, apiKey: KEY, maxRetries: 3, ...FAST, onRetry: (r) => retries.push(r) });
    const result = await client.generate({ agentId: 'a', prompt: 'p' });
    expect(result.id).toBe('gen_1');
    expect(server.requests).toHaveLength(4);
    const keys = new Set(server.requests.map((r) => r.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect(retries.map((r) => r.attempt)).toEqual([2, 3, 4]);
  });

  it('retries runWorkflow and createVideo with one key each, and sends the override body', async () => {
    let posts = 0;
    server = await startServer((req, res) => {
      if (++posts % 2 === 1) return json(res, 503, { error: { message: 'busy' } });
      if (req.url!.includes('/workflows/')) return json(res, 201, { id: 'run_1', status: 'queued', totalNodes: 2, completedNodes: 0 });
      json(res, 202, { id: 'vid_1', status: 'queued' });
    });
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    await client.runWorkflow('wf_a', { character: 'a dwarf' });
    await client.createVideo({ prompt: 'waves', aspectRatio: '1:1' });
    const [r1, r2, v1, v2] = server.requests;
    expect(r1!.url).toBe('/api/v1/workflows/wf_a/run');
    expect(JSON.parse(r2!.body)).toEqual({ overrides: { character: 'a dwarf' } });
    expect(r1!.headers['idempotency-key']).toBe(r2!.headers['idempotency-key']);
    expect(v1!.headers['idempotency-key']).toBe(v2!.headers['idempotency-key']);
    expect(v1!.headers['idempotency-key']).not.toBe(r1!.headers['idempotency-key']);
    expect(JSON.parse(v1!.body)).toEqual({ prompt: 'waves', aspectRatio: '1:1' });
  });

  it('gives each logical call its own key, or the caller-supplied one', async () => {
    server = await startServer((_req, res) => json(res, 201, generation()));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    await client.generate({ agentId: 'a', prompt: 'p' });
    await client.generate({ agentId: 'a', prompt: 'p' });
    await client.generate({ agentId: 'a', prompt: 'p' }, { idempotencyKey: 'mine-1' });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);
    expect(keys[2]).toBe('mine-1');
  });

  it('does not send an idempotency key on GETs', async () => {
    server = await startServer((_req, res) => json(res, 200, { workflows: [] }));
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    await client.listWorkflows();
    expect(server.requests[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('honours retry-after-ms and Retry-After (seconds and dates)', async () => {
    // A date already past: honoured as "now" (0), not replaced by the backoff. (Future dates are read
    // in normalize.test.ts with a fixed clock; here a clock race would make the test flaky.)
    const date = new Date(Date.now() - 60_000).toUTCString();
    const script: Record<string, string>[] = [{ 'retry-after-ms': '30' }, { 'retry-after': '0' }, { 'retry-after': date }];
    server = await startServer((_req, res, _s, i) =>
      script[i] ? json(res, i === 0 ? 429 : 503, { error: { message: 'later' } }, script[i]) : json(res, 200, { workflows: [] }),
    );
    const delays: number[] = [];
    client = createClient({ baseUrl: server.url, apiKey: KEY, maxRetries: 3, ...FAST, onRetry: (r) => delays.push(r.delayMs) });
    await client.listWorkflows();
    expect(delays[0]).toBe(30);
    expect(delays[1]).toBe(0);
    expect(delays[2]).toBe(0);
  });

  it('a Retry-After beyond the cap falls back to its own backoff, then surfaces the RateLimitError', async () => {
    server = await startServer((_req, res) =>
      json(res, 429, { error: { code: 'rate_limited', message: 'slow down', retryAfterSeconds: 120 } }, { 'retry-after': '120' }),
    );
    const delays: number[] = [];
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST, onRetry: (r) => delays.push(r.delayMs) });
    const error = await client.listWorkflows().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 120_000 });
    expect(server.requests).toHaveLength(3);
    expect(delays.every((delay) => delay < 1_000)).toBe(true);
  });

  it('retries a 409 (the same idempotency key still in flight) with the same key', async () => {
    server = await startServer((_req, res, _s, i) =>
      i === 0
        ? json(res, 409, { error: { code: 'idempotency_in_progress', message: 'A request with this key is in progress.' } })
        : json(res, 201, { id: 'gen_1', status: 'succeeded', output: { url: '/files/gen_1.png' } }),
    );
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    const generation = await client.generate({ agentId: 'a', prompt: 'p' });
    expect(generation.id).toBe('gen_1');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers['idempotency-key']).toBe(server.requests[0]!.headers['idempotency-key']);
  });

  it('stops after maxRetries and throws the last error', async () => {
    server = await startServer((_req, res) => json(res, 502, { error: { message: 'bad gateway' } }));
    client = createClient({ baseUrl: server.url, apiKey: KEY, maxRetries: 2, ...FAST });
    await expect(client.listWorkflows()).rejects.toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(3);
  });

  it('times out slow headers (and retries them)', async () => {
    server = await startServer((_req, res, _s, i) =>
      i < 1 ? void setTimeout(() => json(res, 200, { workflows: [] }), 1_000).unref() : json(res, 200, { workflows: [{ id: 'wf' }] }),
    );
    client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 100, ...FAST });
    await expect(client.listWorkflows()).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('throws TimeoutError when slow headers never come', async () => {
    server = await startServer((_req, res) => void setTimeout(() => json(res, 200, {}), 2_000).unref());
    // undici's timers tick coarsely (about 1 s), so keep this to one attempt.
    const attempts: number[] = [];
    const onRequest = (info: { attempt: number }) => void attempts.push(info.attempt);
    client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 100, maxRetries: 0, onRequest });
    await expect(client.listWorkflows()).rejects.toBeInstanceOf(TimeoutError);
    // One attempt, counted by the client: the server (in this process) may not have read the
    // request before the 100 ms ran out on a loaded machine, so its count is at most one.
    expect(attempts).toHaveLength(1);
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it('aborts a call with the signal reason, or AbortedError', async () => {
    // The server never answers, and each abort is sent once the request has arrived (not after a
    // delay): only the abort can end the call, however slow the machine.
    const arrivals: (() => void)[] = [];
    server = await startServer(() => arrivals.shift()?.());
    client = createClient({ baseUrl: server.url, apiKey: KEY, maxRetries: 0 });
    const abortOnArrival = (abort: () => void) => arrivals.push(abort);
    const controller = new AbortController();
    abortOnArrival(() => controller.abort());
    await expect(client.listWorkflows({ signal: controller.signal })).rejects.toMatchObject({ name: 'AbortedError' });
    const timed = new AbortController();
    abortOnArrival(() => timed.abort(new TimeoutError('Gave up.')));
    await expect(client.listWorkflows({ signal: timed.signal })).rejects.toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(2);
  });

  it('reads at most 64 KB of an error body and quotes its first 1 KiB with its size (a 20 MB error)', async () => {
    const huge = 'x'.repeat(20 * 1024 * 1024);
    server = await startServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'text/plain', 'content-length': String(huge.length) });
      res.end(huge);
    });
    client = createClient({ baseUrl: server.url, apiKey: KEY });
    const error = (await client.listWorkflows().catch((e: unknown) => e)) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    // The first 1 KiB quoted, and the size the service announced.
    expect(error.message).toMatch(/^x{1024}… \(20,971,520 bytes; first 1,024 shown\)$/);
    expect(String(error.body).length).toBeLessThanOrEqual(64 * 1024);
  });

  it('never shows the password of a base URL in errors or traces', async () => {
    server = await startServer((_req, res) => json(res, 500, { error: { message: 'boom' } }));
    const lines: string[] = [];
    const baseUrl = server.url.replace('http://', 'http://user:s3cret@');
    client = createClient({
      baseUrl,
      apiKey: KEY,
      ...FAST,
      maxRetries: 0,
      onRequest: (info) => lines.push(info.url),
      onResponse: (info) => lines.push(info.url),
    });
    const error = (await client.listWorkflows().catch((e: unknown) => e)) as Error;
    expect(lines.length).toBeGreaterThan(0);
    expect(`${lines.join('\n')}\n${error.message}`).not.toContain('s3cret');
    const refused = (await createClient({ baseUrl: baseUrl.replace(/:\d+/, ':1'), apiKey: KEY, maxRetries: 0 })
      .listWorkflows()
      .catch((e: unknown) => e)) as Error;
    expect(refused.message).not.toContain('s3cret');
  });
});

describe('what a replay after a lost answer cost', () => {
  // The first attempt is carried out (and charged) but its answer is cut short; the retry, with the
  // same key, gets the stored answer replayed: charged 0 by its headers, 10 by its body.
  const lostThenReplayed = () =>
    startServer((_req, res, _seen, index) =>
      index === 0
        ? truncated(res, 201, generation())
        : json(res, 201, generation(), { 'idempotent-replayed': 'true', 'x-credits-charged': '0', 'x-credits-remaining': '990' }),
    );

  it("with a key no call used before (the client's own, or one the caller says is new): the lost attempt paid, so it counts", async () => {
    for (const options of [{}, { idempotencyKey: 'k-new', keyIsNew: true }]) {
      server = await lostThenReplayed();
      const seen: unknown[] = [];
      client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST, onCredits: (credits) => seen.push(credits) });
      const result = await client.generate({ agentId: 'a', prompt: 'p' }, options);
      expect(server.requests).toHaveLength(2);
      expect(result.credits).toEqual({ charged: 10, remaining: 990 });
      expect(seen).toEqual([{ charged: 10, remaining: 990 }]);
      await client.close();
      await server.close();
    }
  });

  it('with a key that may have been used before (given by the user, or resumed): 0 known, what the first call paid apart, and one charge not known (the lost attempt may have been that call)', async () => {
    server = await lostThenReplayed();
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    const result = await client.generate({ agentId: 'a', prompt: 'p' }, { idempotencyKey: 'k-old' });
    expect(result.credits).toEqual({ charged: 0, remaining: 990, paidEarlier: 10, unknownCharges: 1 });
  });

  it('with such a key, every attempt answered (a resume whose job an earlier call paid): 0, nothing not known', async () => {
    server = await startServer((_req, res) =>
      json(res, 201, generation(), { 'idempotent-replayed': 'true', 'x-credits-charged': '0', 'x-credits-remaining': '990' }),
    );
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    const result = await client.generate({ agentId: 'a', prompt: 'p' }, { idempotencyKey: 'k-old' });
    expect(result.credits).toEqual({ charged: 0, remaining: 990, paidEarlier: 10 });
  });
});
