#!/usr/bin/env node
// The SDK under concurrency, warm against warm: `createClient(…).generate()` 50,000 times, 16 in
// flight, against a bare node:http server (its own process) answering the mock's real generate JSON
// with its credit headers; the baseline is autocannon making the same request (POST, the same JSON
// body, Authorization and a fresh Idempotency-Key each) on 16 connections, pipelining 1.
// Each contender is a fresh process that first makes BENCH_SDK_WARMUP calls the same way (its JIT,
// its module loading, autocannon's start-up), then the timed 50,000: both measured past their
// start-up. Beside it, the cold figure: 10,000 calls from a fresh process, the first calls timed.
// Rounds interleaved (the order turned each round), every round reported: the duration ratio (wall,
// first request to last answer) and the CPU per call (user + system, the contender's process).
// The split rows (BENCH_SDK_SPLIT=0 leaves them out; warm, medians) say where the SDK's
// microseconds go: node:http by hand, undici's Agent by hand, the SDK's own pooled transport alone
// (assetgen's undici clients, no SDK above it), then the SDK.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runAlone } from './table.mjs';

const SELF = fileURLToPath(import.meta.url);
const RUNS = Math.max(3, Number(process.env.BENCH_SDK_RUNS ?? 5));
const WARM_CALLS = Number(process.env.BENCH_SDK_CALLS ?? 50_000);
const WARMUP_CALLS = Number(process.env.BENCH_SDK_WARMUP ?? 20_000);
const COLD_CALLS = 10_000;
const IN_FLIGHT = 16;
const WALL_GOAL = 0.9;
const CPU_GOAL = 1.25;
const PROMPT = { agentId: 'sprite-artist', prompt: 'crate' };

/** Runs one role of this file in a fresh process; resolves with the message it sends. */
function child(role, data) {
  return new Promise((resolve, reject) => {
    const proc = fork(SELF, [role, JSON.stringify(data ?? {})], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    proc.once('message', (message) => resolve({ message, proc }));
    proc.once('exit', (code) => code && reject(new Error(`${role} exited ${code}`)));
  });
}

/** How many connections the bare server accepted since it was last asked. */
function connectionsSince(serverProc) {
  return new Promise((resolve) => {
    serverProc.once('message', (message) => resolve(message.connections));
    serverProc.send('connections');
  });
}

async function measure(role, data) {
  const { message, proc } = await child(role, data);
  proc.kill();
  return message;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Wall and CPU µs per call of one measured run. */
const perCall = (r) => ({ wall: (r.wallMs * 1000) / r.calls, cpu: r.cpuUs / r.calls });
const us = (value) => `${value.toFixed(1)} µs`;
const perSecond = (s) => `${Math.round(1e6 / s.wall).toLocaleString('en')} calls/s (${us(s.wall)} wall, ${us(s.cpu)} CPU per call)`;
const count = (n) => n.toLocaleString('en');

export async function run() {
  const sample = await measure('sample');
  const { message: server, proc: serverProc } = await child('bare-server', sample);
  const split = process.env.BENCH_SDK_SPLIT !== '0';
  // BENCH_SDK_BEFORE=<a dist/ built from another commit>: that build's SDK runs beside, for a before/after.
  const before = process.env.BENCH_SDK_BEFORE ? ['sdk-before'] : [];
  const warmContenders = ['autocannon', 'sdk', ...before, ...(split ? ['split-http', 'split-undici', 'split-transport'] : [])];
  const coldContenders = ['autocannon', 'sdk', ...before];
  const warm = Object.fromEntries(warmContenders.map((name) => [name, []]));
  const cold = Object.fromEntries(coldContenders.map((name) => [name, []]));
  const sockets = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, the order turned each round so neither side always runs on a warmer machine.
      const turn = (list) => (i % 2 ? [...list].reverse() : list);
      for (const name of turn(warmContenders)) {
        warm[name].push(await measure(name, { url: server.url, apiKey: sample.apiKey, warmup: WARMUP_CALLS, calls: WARM_CALLS }));
        const opened = await connectionsSince(serverProc);
        if (name === 'sdk') sockets.push(opened);
      }
      for (const name of turn(coldContenders)) {
        cold[name].push(await measure(name, { url: server.url, apiKey: sample.apiKey, warmup: 0, calls: COLD_CALLS }));
        await connectionsSince(serverProc);
      }
    }
  } finally {
    serverProc.kill();
  }

  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    const cannon = perCall(warm.autocannon[i]);
    const sdk = perCall(warm.sdk[i]);
    const wallRatio = cannon.wall / sdk.wall;
    const cpuRatio = sdk.cpu / cannon.cpu;
    rows.push({
      figure: `SDK \`createClient().generate()\` ×${count(WARM_CALLS)}, ${IN_FLIGHT} in flight, **warm** (after ${count(WARMUP_CALLS)} calls in the same process), round ${i + 1} of ${RUNS}, by duration (${sockets[i]} connections)`,
      measured: perSecond(sdk),
      baseline: `autocannon, warm likewise, ${IN_FLIGHT} connections, same request: ${perSecond(cannon)}`,
      ratio: wallRatio,
      goal: `≥ ${WALL_GOAL}×`,
      // Each call in flight keeps its keep-alive socket, and the first call's (node:http, before the
      // calls overlapped and moved to the pooled clients): more would mean sockets not reused.
      met: wallRatio >= WALL_GOAL && sockets[i] <= IN_FLIGHT + 1,
    });
    rows.push({
      figure: `the same, round ${i + 1}: CPU per call, SDK ÷ autocannon (**warm**)`,
      measured: us(sdk.cpu),
      baseline: `autocannon: ${us(cannon.cpu)}`,
      ratio: cpuRatio,
      goal: `≤ ${CPU_GOAL}×`,
      met: cpuRatio <= CPU_GOAL,
    });
    if (before.length) {
      const then = perCall(warm['sdk-before'][i]);
      rows.push({
        figure: `the same, round ${i + 1}: the SDK of ${process.env.BENCH_SDK_BEFORE} (before), **warm**; ratio: CPU per call, before ÷ this`,
        measured: perSecond(then),
        baseline: `this SDK: ${perSecond(sdk)}; autocannon ${us(cannon.wall)} wall (ratio ${(cannon.wall / then.wall).toFixed(2)}×)`,
        ratio: then.cpu / sdk.cpu,
        goal: 'reference',
        met: undefined,
      });
    }
  }
  for (let i = 0; i < RUNS; i++) {
    const cannon = perCall(cold.autocannon[i]);
    const sdk = perCall(cold.sdk[i]);
    rows.push({
      figure: `SDK \`createClient().generate()\` ×${count(COLD_CALLS)}, ${IN_FLIGHT} in flight, **cold** (a fresh process, its first calls: JIT and loading included), round ${i + 1}, by duration`,
      measured: perSecond(sdk),
      baseline: `autocannon, cold likewise (its start-up included): ${perSecond(cannon)}; CPU ratio ${(sdk.cpu / cannon.cpu).toFixed(2)}×`,
      ratio: cannon.wall / sdk.wall,
      goal: 'reference',
      met: undefined,
    });
  }
  if (split) {
    const cannon = summary(warm.autocannon);
    const steps = [
      ['split-http', 'node:http by hand (keep-alive agent), the SDK’s headers, JSON both ways'],
      ['split-undici', 'undici’s Agent by hand (`agent.request`), the SDK’s headers, JSON both ways'],
      ['split-transport', 'the SDK’s own pooled transport alone (its undici clients), the SDK’s headers, JSON both ways'],
      ['sdk', 'the SDK (retries, bounds, timeouts, hooks, credits, the record), above that transport'],
    ];
    for (const [name, what] of steps) {
      const s = summary(warm[name]);
      rows.push({
        figure: `split, **warm** (median of ${RUNS}): ${what}`,
        measured: perSecond(s),
        baseline: `autocannon: ${us(cannon.wall)} wall, ${us(cannon.cpu)} CPU per call; CPU ratio ${(s.cpu / cannon.cpu).toFixed(2)}×`,
        ratio: cannon.wall / s.wall,
        goal: 'reference',
        met: undefined,
      });
    }
  }
  return rows;
}

/** Medians of wall and CPU µs per call over the rounds. */
function summary(results) {
  const calls = results.map(perCall);
  return { wall: median(calls.map((c) => c.wall)), cpu: median(calls.map((c) => c.cpu)) };
}

// ── child roles ──────────────────────────────────────────────────────────────────────────────────
const [role, data] = [process.argv[2], process.argv[3] ? JSON.parse(process.argv[3]) : {}];

/** Times `calls` calls of `one`, `IN_FLIGHT` at a time: wall and this process's CPU. */
async function timed(calls, one) {
  let started = 0;
  const worker = async () => {
    while (started < calls) {
      started++;
      await one();
    }
  };
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { calls, wallMs, cpuUs: used.user + used.system };
}

/** The warm-up (not timed), then the timed calls: what the child reports. */
async function warmThenTimed(one) {
  if (data.warmup > 0) await timed(data.warmup, one);
  return timed(data.calls, one);
}

/** The headers the SDK sends on a generate call (see src/client/http.ts). */
function sdkHeaders(apiKey) {
  return {
    'user-agent': `assetgen-client node/${process.versions.node}`,
    accept: 'application/json',
    'content-type': 'application/json',
    'idempotency-key': randomUUID(),
    authorization: `Bearer ${apiKey}`,
  };
}

/** A body read whole, as text. */
function text(body) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    body.on('data', (chunk) => chunks.push(chunk));
    body.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    body.once('error', reject);
  });
}

/** One POST through node:http with a keep-alive agent like the SDK's; resolves with the body text. */
function post(http, agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent,
    });
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode >= 400) reject(new Error(`HTTP ${response.statusCode}`));
      resolve(text(response));
    });
    request.end(body);
  });
}

/** An answer's JSON, checked as the bench's contenders check it. */
function checked(answerText) {
  const answer = JSON.parse(answerText);
  if (!answer.id) throw new Error('an answer without an id');
}

/** One autocannon run of `amount` requests; resolves with its wall and CPU to its last answer. */
async function cannon(autocannon, amount) {
  // Timed to its last answer, as the SDK is: autocannon itself ends on its next sampling tick
  // (once a second by default), which would round its time up to a whole second.
  let answered = 0;
  let last;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const instance = autocannon({
    url: `${data.url}/api/v1/generate`,
    connections: IN_FLIGHT,
    pipelining: 1,
    amount,
    sampleInt: 10,
    method: 'POST',
    // `[<id>]` becomes a fresh id in every request (idReplacement): each its own Idempotency-Key.
    headers: { authorization: `Bearer ${data.apiKey}`, 'content-type': 'application/json', 'idempotency-key': '[<id>]' },
    body: JSON.stringify(PROMPT),
    idReplacement: true,
  });
  instance.on('response', () => {
    if (++answered === amount) last = { wallMs: performance.now() - start, used: process.cpuUsage(cpu) };
  });
  const result = await instance;
  const ok = result['2xx'];
  if (ok !== amount || result.errors || result.timeouts || !last) {
    throw new Error(`autocannon: ${ok} of ${amount} answered 2xx, ${result.errors} errors`);
  }
  return { calls: amount, wallMs: last.wallMs, cpuUs: last.used.user + last.used.system };
}

if (role === 'sample') {
  // The mock's real generate answer: its JSON and every header a client reads.
  const { startMockServer } = await import('../dist/mock/index.js');
  const server = await startMockServer({ credits: 1e12 });
  server.service.state.config.latencyMs = 0;
  const response = await fetch(`${server.url}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(PROMPT),
  });
  const headers = {};
  for (const [name, value] of response.headers)
    if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
  process.send({ status: response.status, headers, body: await response.text(), apiKey: server.apiKey });
  await server.close();
} else if (role === 'bare-server') {
  const http = await import('node:http');
  const body = Buffer.from(data.body);
  const headers = { ...data.headers, 'content-length': String(body.length) };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(data.status, headers);
      res.end(body);
    });
  });
  server.keepAliveTimeout = 5_000;
  let connections = 0;
  server.on('connection', () => connections++);
  process.on('message', () => {
    process.send({ connections });
    connections = 0;
  });
  server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
} else if (role === 'autocannon') {
  const { default: autocannon } = await import('autocannon');
  // Its warm-up is a run of its own before the timed one, in this process: autocannon's start-up
  // and JIT are past, as the SDK's are (its timed run opens its 16 connections again).
  if (data.warmup > 0) await cannon(autocannon, data.warmup);
  process.send(await cannon(autocannon, data.calls));
} else if (role === 'sdk' || role === 'sdk-before') {
  const dist = role === 'sdk' ? '../dist' : path.resolve(process.env.BENCH_SDK_BEFORE);
  const { createClient } = await import(role === 'sdk' ? `${dist}/index.js` : pathToFileURL(`${dist}/index.js`).href);
  const client = createClient({ baseUrl: data.url, apiKey: data.apiKey });
  const result = await warmThenTimed(async () => {
    const generation = await client.generate(PROMPT);
    if (!generation.id) throw new Error('a generation without an id');
  });
  await client.close();
  process.send(result);
} else if (role === 'split-undici') {
  const { Agent } = await import('undici');
  const agent = new Agent();
  const { origin } = new URL(data.url);
  const result = await warmThenTimed(async () => {
    const response = await agent.request({
      origin,
      path: '/api/v1/generate',
      method: 'POST',
      headers: sdkHeaders(data.apiKey),
      body: JSON.stringify(PROMPT),
    });
    if (response.statusCode >= 400) throw new Error(`HTTP ${response.statusCode}`);
    checked(await response.body.text());
  });
  process.send(result);
  await agent.close();
} else if (role === 'split-transport') {
  // The SDK's transport as the SDK drives it once calls overlap, without the SDK above it.
  const { createTransport } = await import('../dist/client/transport.js');
  const transport = await createTransport({ connectTimeoutMs: 10_000, pooling: 'always' });
  const url = new URL('/api/v1/generate', data.url).href;
  const result = await warmThenTimed(async () => {
    const response = await transport.send({
      method: 'POST',
      url,
      headers: sdkHeaders(data.apiKey),
      body: JSON.stringify(PROMPT),
      headersTimeoutMs: 30_000,
      bodyTimeoutMs: 30_000,
    });
    if (response.status >= 400) throw new Error(`HTTP ${response.status}`);
    checked(await text(response.body));
  });
  process.send(result);
  await transport.close();
} else if (role === 'split-http') {
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL('/api/v1/generate', data.url);
  const result = await warmThenTimed(async () => checked(await post(http, agent, url, sdkHeaders(data.apiKey), JSON.stringify(PROMPT))));
  process.send(result);
  agent.destroy();
} else {
  await runAlone(import.meta, run);
}
