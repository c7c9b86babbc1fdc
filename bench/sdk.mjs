#!/usr/bin/env node
// The SDK under concurrency: `createClient(…).generate()` 10,000 times, 16 in flight, against a bare
// node:http server (its own process) answering the mock's real generate JSON with its credit
// headers; the baseline is autocannon making the same request (POST, the same JSON body,
// Authorization and a fresh Idempotency-Key each) on 16 connections, pipelining 1. Every contender
// is a fresh process per run, runs interleaved, medians of BENCH_SDK_RUNS (≥ 5); wall time and the
// contender's CPU time (user + system) per call, from its first request to its last answer.
// The split rows (BENCH_SDK_SPLIT=0 leaves them out) say where the SDK's microseconds go: node:http
// alone with the same keep-alive agent, then + the SDK's headers, then + JSON both ways; and, for
// the transport's own floor, the same headers and JSON through undici's Agent (`dispatcher.request`,
// undici loaded before the clock starts) in place of node:http.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runAlone } from './table.mjs';

const SELF = fileURLToPath(import.meta.url);
const RUNS = Math.max(5, Number(process.env.BENCH_SDK_RUNS ?? 5));
const IN_FLIGHT = 16;
const GOAL = 0.5;
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

/** Medians of wall and CPU µs per call over the runs; the spread of the wall figure. */
function summary(results) {
  const wall = results.map((r) => (r.wallMs * 1000) / r.calls);
  const cpu = results.map((r) => r.cpuUs / r.calls);
  return { wall: median(wall), cpu: median(cpu), min: Math.min(...wall), max: Math.max(...wall) };
}

const us = (value) => `${value.toFixed(1)} µs`;
const perSecond = (s) => `${Math.round(1e6 / s.wall).toLocaleString('en')} calls/s (${us(s.wall)} wall, ${us(s.cpu)} CPU per call)`;

export async function run() {
  const sample = await measure('sample');
  const { message: server, proc: serverProc } = await child('bare-server', sample);
  const split = process.env.BENCH_SDK_SPLIT !== '0';
  // BENCH_SDK_BEFORE=<a dist/ built from another commit>: that build's SDK runs beside, for a before/after.
  const before = process.env.BENCH_SDK_BEFORE ? ['sdk-before'] : [];
  const contenders = ['autocannon', 'sdk', ...before, ...(split ? ['split-http', 'split-headers', 'split-json', 'split-undici'] : [])];
  const rows = [];
  try {
    for (const calls of [10_000, 1_000]) {
      const results = Object.fromEntries(contenders.map((name) => [name, []]));
      let sockets = 0;
      for (let i = 0; i < RUNS; i++) {
        // Interleaved, the order turned each round so neither side always runs on a warmer machine.
        const order = i % 2 ? [...contenders].reverse() : contenders;
        for (const name of order) {
          if (calls !== 10_000 && name.startsWith('split')) continue;
          results[name].push(await measure(name, { url: server.url, apiKey: sample.apiKey, calls }));
          const opened = await connectionsSince(serverProc);
          if (name === 'sdk') sockets = Math.max(sockets, opened);
        }
      }
      const cannon = summary(results.autocannon);
      const sdk = summary(results.sdk);
      const ratio = cannon.wall / sdk.wall;
      const goal = calls === 10_000;
      rows.push({
        figure: `SDK \`createClient().generate()\` ×${calls.toLocaleString('en')}, ${IN_FLIGHT} in flight (median of ${RUNS}; wall ${us(sdk.min)}–${us(sdk.max)} per call; ${sockets} connections a run)`,
        measured: perSecond(sdk),
        baseline: `autocannon, ${IN_FLIGHT} connections, same request: ${perSecond(cannon)}`,
        ratio,
        goal: goal ? `≥ ${GOAL}×` : 'reference',
        // Each call in flight keeps its keep-alive socket: more would mean sockets not reused.
        // Reusing connections: one per call in flight, and the first call's (node:http, before the
        // calls overlapped and moved to undici's pooled clients: src/client/transport.ts).
        met: goal ? ratio >= GOAL && sockets <= IN_FLIGHT + 1 : undefined,
      });
      if (before.length) {
        const s = summary(results['sdk-before']);
        rows.push({
          figure: `the same, the SDK of ${process.env.BENCH_SDK_BEFORE} (before)`,
          measured: perSecond(s),
          baseline: `autocannon: ${us(cannon.wall)} wall, ${us(cannon.cpu)} CPU per call`,
          ratio: cannon.wall / s.wall,
          goal: 'reference',
          met: undefined,
        });
      }
      if (calls !== 10_000 || !split) continue;
      const steps = [
        ['split-http', 'node:http alone, same keep-alive agent, body read and dropped'],
        ['split-headers', '+ the SDK’s request headers (a fresh Idempotency-Key each)'],
        ['split-json', '+ JSON: the body stringified, the answer read whole and parsed'],
        ['sdk', '+ the SDK (retries, bounds, hooks, credits, the record)'],
        ['split-undici', 'undici’s Agent in place of node:http: the SDK’s headers, JSON both ways (the transport’s floor)'],
      ];
      for (const [name, what] of steps) {
        const s = summary(results[name]);
        rows.push({
          figure: `split: ${what}`,
          measured: perSecond(s),
          baseline: `autocannon: ${us(cannon.wall)} wall, ${us(cannon.cpu)} CPU per call`,
          ratio: cannon.wall / s.wall,
          goal: 'reference',
          met: undefined,
        });
      }
    }
  } finally {
    serverProc.kill();
  }
  return rows;
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

/** One POST through node:http with a keep-alive agent like the SDK's; resolves with the body text or nothing. */
function post(http, agent, url, headers, body, read) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent,
    });
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode >= 400) reject(new Error(`HTTP ${response.statusCode}`));
      if (!read) {
        response.resume();
        response.once('end', resolve);
        return;
      }
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    request.end(body);
  });
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
    amount: data.calls,
    sampleInt: 10,
    method: 'POST',
    // `[<id>]` becomes a fresh id in every request (idReplacement): each its own Idempotency-Key.
    headers: { authorization: `Bearer ${data.apiKey}`, 'content-type': 'application/json', 'idempotency-key': '[<id>]' },
    body: JSON.stringify(PROMPT),
    idReplacement: true,
  });
  instance.on('response', () => {
    if (++answered === data.calls) last = { wallMs: performance.now() - start, used: process.cpuUsage(cpu) };
  });
  const result = await instance;
  const ok = result['2xx'];
  if (ok !== data.calls || result.errors || result.timeouts || !last) {
    throw new Error(`autocannon: ${ok} of ${data.calls} answered 2xx, ${result.errors} errors`);
  }
  process.send({ calls: data.calls, wallMs: last.wallMs, cpuUs: last.used.user + last.used.system });
} else if (role === 'sdk' || role === 'sdk-before') {
  const dist = role === 'sdk' ? '../dist' : path.resolve(process.env.BENCH_SDK_BEFORE);
  const { createClient } = await import(role === 'sdk' ? `${dist}/index.js` : pathToFileURL(`${dist}/index.js`).href);
  const client = createClient({ baseUrl: data.url, apiKey: data.apiKey });
  const result = await timed(data.calls, async () => {
    const generation = await client.generate(PROMPT);
    if (!generation.id) throw new Error('a generation without an id');
  });
  await client.close();
  process.send(result);
} else if (role === 'split-undici') {
  const { Agent } = await import('undici');
  const agent = new Agent();
  const { origin } = new URL(data.url);
  const step = async () => {
    const response = await agent.request({
      origin,
      path: '/api/v1/generate',
      method: 'POST',
      headers: sdkHeaders(data.apiKey),
      body: JSON.stringify(PROMPT),
    });
    if (response.statusCode >= 400) throw new Error(`HTTP ${response.statusCode}`);
    const answer = JSON.parse(await response.body.text());
    if (!answer.id) throw new Error('an answer without an id');
  };
  process.send(await timed(data.calls, step));
  await agent.close();
} else if (role?.startsWith('split-')) {
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL('/api/v1/generate', data.url);
  const fixed = JSON.stringify(PROMPT);
  const steps = {
    'split-http': () => post(http, agent, url, { 'content-type': 'application/json' }, fixed, false),
    'split-headers': () => post(http, agent, url, sdkHeaders(data.apiKey), fixed, false),
    'split-json': async () => {
      const answer = JSON.parse(await post(http, agent, url, sdkHeaders(data.apiKey), JSON.stringify(PROMPT), true));
      if (!answer.id) throw new Error('an answer without an id');
    },
  };
  process.send(await timed(data.calls, steps[role]));
  agent.destroy();
} else {
  await runAlone(import.meta, run);
}
