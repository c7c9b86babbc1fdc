// A scripted service that keeps its own ledger and drops connections after charging: the truth a
// test holds assetgen's credit figures to when an attempt's answer never came. A call made with the
// API key is charged as it arrives (the work done before any answer, as service-api §5 has it:
// "each call authenticated with a key deducts credits"); a session's call never is; a keyed POST
// asked again with its Idempotency-Key is a replay, charged 0. `drop` picks the arrivals answered by
// destroying the socket, no status line sent: charged all the same. A video job may fail instead
// (`videoOutcome`), refunded by the service on its own clock, its records saying so or not (`refund`).
import http from 'node:http';
import { json, KEY, reset, type Handler } from './http.js';

export const POLL_PRICE = 1;
export const VIDEO_PRICE = 180;
export const RUN_PRICE = 15;

/**
 * A bound on a test that goes wrong: past this many polls of one job, the service says it knows no
 * such job (404), which ends any wait, instead of answering "running" for ever.
 */
export const MAX_POLLS = 20;

/** What one image costs (POST /api/v1/generate). */
export const GENERATE_PRICE = 10;

/** The bytes of an MP4 (an `ftyp` box): what a video job's output URL serves. */
export const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(12)]);

/** A 1×1 PNG: what a generation's output URL serves. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

export interface Arrival {
  method: string;
  /** The path, e.g. `/api/v1/video/vid_1`. */
  path: string;
  /** 1 for the first call of this method and path, 2 for the next (a retry, or the next poll)… */
  nth: number;
  /** With the API key (charged). */
  keyed: boolean;
  /** A keyed POST's Idempotency-Key. */
  idempotencyKey?: string;
  /** A keyed POST whose key the service has answered before: a replay (charged 0). */
  replay: boolean;
}

export interface ChargingService {
  handler: Handler;
  /** Each charge, in order; a refund is a negative one (`refund vid_…`). */
  readonly ledger: { amount: number; what: string }[];
  /** The sum of the ledger (refunds are negative). */
  spent(): number;
  /** What the ledger charged, refunds left out. */
  charged(): number;
  /** What the ledger gave back (failed video jobs' refunds), as a positive figure. */
  refunded(): number;
  readonly balance: number;
}

export interface ChargingOptions {
  /** Arrivals answered by dropping the connection (after they were charged). */
  drop?: (arrival: Arrival) => boolean;
  /** A video job succeeds on this arrival of its poll (dropped ones count: the job goes on regardless); default 2. */
  videoDoneAt?: number;
  /** How a video job ends on its `videoDoneAt` poll: `succeed` (default) or `fail` (with an `error`). */
  videoOutcome?: 'succeed' | 'fail';
  /**
   * A failed job's refund, which the service makes by itself (service-api §3.2): `afterMs` after
   * the failure (default 0: in the failing answer already), of `amount` (default the job's 180);
   * `stated` (default true): its records say so (`refunded`, `refund: {amount}`); false: they say
   * nothing of refunds, before or after (the service document shows no bodies).
   */
  refund?: { afterMs?: number; amount?: number; stated?: boolean };
  balance?: number;
  /**
   * false: no answer's body carries `credits` (the service document shows no bodies), only the
   * `X-Credits-*` headers: a replay then says what it cost (0), never what its original call was
   * charged. Default true.
   */
  creditsInBody?: boolean;
}

/** The first arrival of every poll path (a video job's or a run's) is dropped. */
export const dropFirstPoll = (arrival: Arrival): boolean =>
  arrival.method === 'GET' && /^\/api\/v1\/(video|runs)\//.test(arrival.path) && arrival.nth === 1;

export function chargingService(options: ChargingOptions = {}): ChargingService {
  let balance = options.balance ?? 1_000;
  const ledger: { amount: number; what: string }[] = [];
  const arrivals = new Map<string, number>();
  const replays = new Map<string, { status: number; body: unknown }>();
  let videos = 0;
  let generations = 0;
  const charge = (amount: number, what: string): number => {
    balance -= amount;
    ledger.push({ amount, what });
    return amount;
  };
  /** Failed video jobs: when each failed, and its refund once made. */
  const failures = new Map<string, { refund: { amount: number; at: string } | null }>();
  const refundOf = (id: string): void => {
    const failure = failures.get(id)!;
    if (failure.refund) return;
    const amount = options.refund?.amount ?? VIDEO_PRICE;
    charge(-amount, `refund ${id}`);
    failure.refund = { amount, at: new Date().toISOString() };
  };
  const fail = (id: string): void => {
    if (failures.has(id)) return;
    failures.set(id, { refund: null });
    const afterMs = options.refund?.afterMs ?? 0;
    if (afterMs <= 0) return refundOf(id);
    // On the service's clock, polled or not; unref'd, so a refund still due never holds the test up.
    setTimeout(() => refundOf(id), afterMs).unref();
  };
  const failedRecord = (id: string): Record<string, unknown> => {
    const failure = failures.get(id)!;
    const record: Record<string, unknown> = {
      id,
      status: 'failed',
      error: { code: 'generation_failed', message: 'The renderer gave up.' },
    };
    if (options.refund?.stated === false) return record;
    return { ...record, refunded: failure.refund !== null, refund: failure.refund };
  };
  const answer = (res: http.ServerResponse, status: number, body: unknown, charged: number): void =>
    json(res, status, body, { 'x-credits-charged': String(charged), 'x-credits-remaining': String(balance) });

  const handler: Handler = (_req, res, seen) => {
    const path = seen.url.split('?')[0]!;
    const keyed = seen.headers.authorization === `Bearer ${KEY}`;
    const nth = (arrivals.get(`${seen.method} ${path}`) ?? 0) + 1;
    arrivals.set(`${seen.method} ${path}`, nth);
    const idempotencyKey = seen.headers['idempotency-key'] as string | undefined;
    const replay = seen.method === 'POST' && idempotencyKey !== undefined && replays.has(idempotencyKey);
    const dropped = options.drop?.({ method: seen.method, path, nth, keyed, idempotencyKey, replay }) ?? false;

    if (seen.method === 'GET' && /^\/api\/v1\/(video|runs)\//.test(path) && nth > MAX_POLLS)
      return json(res, 404, { error: { code: 'not_found', message: `Polled more than ${MAX_POLLS} times: the test went wrong.` } });
    if (seen.method === 'GET' && path.startsWith('/files/')) {
      const [type, bytes] = path.endsWith('.png') ? ['image/png', PNG] : ['video/mp4', MP4];
      res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
      return res.end(bytes);
    }
    if (seen.method === 'POST' && idempotencyKey && replays.has(idempotencyKey)) {
      const stored = replays.get(idempotencyKey)!;
      if (dropped) return reset(res);
      return json(res, stored.status, stored.body, {
        'idempotent-replayed': 'true',
        'x-credits-charged': '0',
        'x-credits-remaining': String(balance),
      });
    }
    let status = 200;
    let body: unknown;
    let charged = 0;
    if (seen.method === 'POST' && path === '/api/v1/generate') {
      const id = `gen_${++generations}`;
      charged = charge(GENERATE_PRICE, `generate ${id}`);
      const { agentId, prompt } = JSON.parse(seen.body) as { agentId: string; prompt: string };
      const output = { url: `/files/${id}.png`, contentType: 'image/png', bytes: PNG.length };
      body = { id, status: 'succeeded', agentId, prompt, output, credits: { charged, remaining: balance } };
    } else if (seen.method === 'POST' && path === '/api/v1/video') {
      const id = `vid_${++videos}`;
      charged = charge(VIDEO_PRICE, `video ${id}`);
      status = 202;
      body = { id, status: 'queued', pollAfterMs: 0, credits: { charged, remaining: balance } };
    } else if (seen.method === 'POST' && /^\/api\/v1\/workflows\/[^/]+\/run$/.test(path)) {
      charged = charge(RUN_PRICE, 'run run_1');
      status = 202;
      body = { id: 'run_1', status: 'running', totalNodes: 3, completedNodes: 0, credits: { charged, remaining: balance } };
    } else if (seen.method === 'GET' && path.startsWith('/api/v1/video/')) {
      const id = path.slice('/api/v1/video/'.length);
      if (keyed) charged = charge(POLL_PRICE, `poll ${id}`);
      const done = nth >= (options.videoDoneAt ?? 2);
      if (done && options.videoOutcome === 'fail') fail(id);
      body = !done
        ? { id, status: 'running', progress: 0.5, pollAfterMs: 0 }
        : options.videoOutcome === 'fail'
          ? failedRecord(id)
          : { id, status: 'succeeded', progress: 1, output: { url: `/files/${id}.mp4`, contentType: 'video/mp4' } };
    } else if (seen.method === 'GET' && path.startsWith('/api/v1/runs/')) {
      const id = path.slice('/api/v1/runs/'.length);
      if (keyed) charged = charge(POLL_PRICE, `poll ${id}`);
      body = { id, status: 'running', totalNodes: 3, completedNodes: 1 };
    } else if (seen.method === 'GET' && path === '/api/v1/workflows') {
      if (keyed) charged = charge(POLL_PRICE, 'list workflows');
      body = { workflows: [{ id: 'wf_one', name: 'One', nodes: [] }] };
    } else {
      return json(res, 404, { error: { code: 'not_found', message: `No ${seen.method} ${path}.` } });
    }
    // Credits in the headers only: no body says any (a replay's stored body neither).
    if (options.creditsInBody === false && body && typeof body === 'object') delete (body as { credits?: unknown }).credits;
    if (seen.method === 'POST' && idempotencyKey) replays.set(idempotencyKey, { status, body });
    if (dropped) return reset(res);
    return answer(res, status, body, charged);
  };
  return {
    handler,
    ledger,
    spent: () => ledger.reduce((sum, entry) => sum + entry.amount, 0),
    charged: () => ledger.reduce((sum, entry) => sum + Math.max(0, entry.amount), 0),
    refunded: () => ledger.reduce((sum, entry) => sum - Math.min(0, entry.amount), 0),
    get balance() {
      return balance;
    },
  };
}
