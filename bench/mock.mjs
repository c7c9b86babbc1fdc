#!/usr/bin/env node
// The bundled mock under load, as clients use it: every POST carries its own Idempotency-Key. Each
// contender is a fresh process per round, the load comes from another process (undici Pool, 10
// keep-alive connections, a warm-up, then a timed window), contenders interleaved, medians of
// BENCH_ROUNDS (≥ 5). Baseline: a bare node:http server answering the same bytes (status, headers,
// body of a real keyed mock answer). Beside the wall rate, each server's CPU per request over the
// same window (wall ratios mislead on a loaded machine).
// - POST /api/v1/generate with a key, goal ≥ 0.6× the bare server; split into the same without a
//   key, and the mock's transport alone answering the same bytes (reference rows);
// - GET of a generated asset (the same PNG bytes), goal ≥ 0.5×;
// - heap after 100k keyed generate requests (load from another process), goal ≤ 64 MiB.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';

const SELF = fileURLToPath(import.meta.url);
const WINDOW_MS = Number(process.env.BENCH_MOCK_MS ?? 3000);
// A fresh mock needs seconds of load before its code is optimised (a loaded machine: ~3 s).
const WARMUP_MS = Number(process.env.BENCH_MOCK_WARMUP_MS ?? 3000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const HEAP_REQUESTS = Number(process.env.BENCH_HEAP_REQUESTS ?? 100_000);
const HEAP_ROUNDS = Math.max(1, Number(process.env.BENCH_HEAP_ROUNDS ?? 3));
const CONNECTIONS = 10;

/** Runs one role of this file in a child process; resolves once it says it is ready. */
function child(role, data = {}, execArgv = []) {
  return new Promise((resolve, reject) => {
    const proc = fork(SELF, [role, JSON.stringify(data)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    proc.once('message', (message) => resolve({ ...message, proc, ask: (question) => ask(proc, question) }));
    proc.once('exit', (code) => code && reject(new Error(`${role} exited ${code}`)));
  });
}

/** One question to a child, one answer (or the child's failure). */
function ask(proc, question) {
  return new Promise((resolve, reject) => {
    const exited = (code) => reject(new Error(`a benchmark process exited ${code} instead of answering`));
    proc.once('exit', exited);
    proc.once('message', (answer) => {
      proc.off('exit', exited);
      resolve(answer);
    });
    proc.send(question);
  });
}

/** A client's headers: the credential, and a fresh Idempotency-Key on every POST (as the SDK sends). */
function clientHeaders(apiKey) {
  return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'bench' };
}

/** One round against one server: warm-up, then the timed window; rate from the load, CPU from the server. */
async function measure(server, request) {
  const load = await child('load', { url: server.url, request, warmupMs: WARMUP_MS, windowMs: WINDOW_MS });
  const result = ask(load.proc, 'start');
  // The window opens after the warm-up, in the load process and (give or take an IPC hop) in the server.
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  await server.ask('mark');
  const { perSecond, windowRequests } = await result;
  const { cpuMicros } = await server.ask('report');
  load.proc.kill();
  return { perSecond, cpuMicrosPerRequest: cpuMicros / windowRequests };
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const spread = (list, digits = 2) => `${Math.min(...list).toFixed(digits)}–${Math.max(...list).toFixed(digits)}`;

/**
 * ROUNDS rounds; in each, every contender `{ name, start(), request(server) }` in a fresh process,
 * their order rotating. Per contender: median rate and CPU per request, and the medians of its
 * per-round ratios to the last contender (the baseline).
 */
async function compare(contenders) {
  const results = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < contenders.length; turn++) {
      const index = (round + turn) % contenders.length;
      const server = await contenders[index].start();
      try {
        results[index].push(await measure(server, contenders[index].request(server)));
      } finally {
        server.proc.kill();
      }
    }
  }
  const base = results.at(-1);
  return contenders.map((contender, index) => {
    const rates = results[index].map((r, i) => r.perSecond / base[i].perSecond);
    const cpus = results[index].map((r, i) => base[i].cpuMicrosPerRequest / r.cpuMicrosPerRequest);
    return {
      name: contender.name,
      rate: median(results[index].map((r) => r.perSecond)),
      cpu: median(results[index].map((r) => r.cpuMicrosPerRequest)),
      rateRatio: median(rates),
      rateSpread: spread(rates),
      cpuRatio: median(cpus),
      cpuSpread: spread(cpus),
    };
  });
}

const fmt = (n) => Math.round(n).toLocaleString('en');

/** A contender's wall rate against the baseline's (with `goal`, or a reference row). */
function rateRow(result, base, goal) {
  return {
    figure: `${result.name}, 10 connections (median of ${ROUNDS}; ratios ${result.rateSpread})`,
    measured: `${fmt(result.rate)} req/s (${result.cpu.toFixed(1)} µs CPU per request)`,
    baseline: `${base.name}: ${fmt(base.rate)} req/s (${base.cpu.toFixed(1)} µs)`,
    ratio: result.rateRatio,
    goal: goal === undefined ? 'reference' : `≥ ${goal}×`,
    met: goal === undefined ? undefined : result.rateRatio >= goal,
  };
}

/** The server's own CPU per request, as a ratio (baseline ÷ contender): what a loaded machine does not blur. */
function cpuRow(result, base) {
  return {
    figure: `${result.name}: the server's CPU per request (median of ${ROUNDS}; ratios ${result.cpuSpread})`,
    measured: `${result.cpu.toFixed(1)} µs`,
    baseline: `${base.name}: ${base.cpu.toFixed(1)} µs (ratio: baseline ÷ this)`,
    ratio: result.cpuRatio,
    goal: 'reference',
    met: undefined,
  };
}

/** Heap of a fresh mock after HEAP_REQUESTS keyed generate requests from another process. */
async function heapAfterLoad() {
  const server = await child('mock-server', {}, ['--expose-gc']);
  try {
    const start = await server.ask('heap');
    const generate = { method: 'POST', path: '/api/v1/generate', headers: clientHeaders(server.apiKey), keyed: true, numbered: true };
    const load = await child('load', { url: server.url, request: generate, count: HEAP_REQUESTS });
    await ask(load.proc, 'start');
    load.proc.kill();
    const end = await server.ask('heap');
    return { start: start.heapUsed, end: end.heapUsed, keys: end.keys };
  } finally {
    server.proc.kill();
  }
}

export async function run() {
  // One keyed answer of the real mock: the bytes the bare server (and the canned mock) answer with.
  const probe = await child('mock-server');
  probe.proc.kill();
  const { sample } = probe;
  // Each mock has its own API key and asset; the bare server ignores the key and answers any GET.
  const generate = (keyed) => (server) => ({
    method: 'POST',
    path: '/api/v1/generate',
    headers: clientHeaders(server.apiKey ?? probe.apiKey),
    keyed,
    numbered: true,
  });
  const bare = { name: 'bare node:http, same bytes', start: () => child('bare-server', sample), request: generate(true) };
  // The split: the same mock without keys (what idempotency costs), and its transport alone answering
  // the sample without the service (what server.ts costs over the bare server).
  const [keyed, unkeyed, transport, base] = await compare([
    { name: 'mock keyed `POST /api/v1/generate`', start: () => child('mock-server'), request: generate(true) },
    { name: 'split: the same without Idempotency-Key', start: () => child('mock-server'), request: generate(false) },
    {
      name: 'split: the mock’s transport alone (a canned answer)',
      start: () => child('mock-server', { canned: sample }),
      request: generate(true),
    },
    bare,
  ]);
  const out = [rateRow(keyed, base, 0.6), cpuRow(keyed, base), rateRow(unkeyed, base), rateRow(transport, base)];
  const [asset, assetBase] = await compare([
    {
      name: 'mock asset `GET /files/…png`',
      start: () => child('mock-server'),
      request: (server) => ({ method: 'GET', path: server.sample.assetPath }),
    },
    { ...bare, request: () => ({ method: 'GET', path: '/asset.png' }) },
  ]);
  out.push(rateRow(asset, assetBase, 0.5));
  const heaps = [];
  for (let i = 0; i < HEAP_ROUNDS; i++) heaps.push(await heapAfterLoad());
  const mib = (bytes) => bytes / 2 ** 20;
  const ends = heaps.map((h) => mib(h.end));
  const heap = mib(median(heaps.map((h) => h.end)));
  out.push({
    figure: `mock heap after ${HEAP_REQUESTS.toLocaleString('en')} keyed generate requests (median of ${HEAP_ROUNDS}: ${spread(ends, 1)} MiB; ${heaps[0].keys.toLocaleString('en')} keys kept)`,
    measured: `${heap.toFixed(1)} MiB`,
    baseline: `the goal, 64 MiB (fresh mock: ${mib(heaps[0].start).toFixed(1)} MiB)`,
    ratio: heap / 64,
    goal: '≤ 1× (64 MiB)',
    met: heap <= 64,
  });
  return out;
}

// ── child roles ──────────────────────────────────────────────────────────────────────────────────
const [role, data] = [process.argv[2], process.argv[3] ? JSON.parse(process.argv[3]) : {}];

/** A server's answers to the parent: its CPU time since `mark`, its heap after a full collection. */
function serveQuestions(keys = () => undefined) {
  let mark = process.cpuUsage();
  process.on('message', (question) => {
    if (question === 'mark') {
      mark = process.cpuUsage();
      process.send({});
    } else if (question === 'report') {
      const cpu = process.cpuUsage(mark);
      process.send({ cpuMicros: cpu.user + cpu.system });
    } else if (question === 'heap') {
      globalThis.gc?.();
      globalThis.gc?.();
      process.send({ heapUsed: process.memoryUsage().heapUsed, keys: keys() });
    }
  });
}

if (role === 'mock-server') {
  const { startMockServer } = await import('../dist/mock/index.js');
  const server = await startMockServer({ credits: 1e12 });
  // One keyed generation: its answer is what the bare server answers with, its file the asset to GET.
  const response = await fetch(`${server.url}/api/v1/generate`, {
    method: 'POST',
    headers: { ...clientHeaders(server.apiKey), 'idempotency-key': randomUUID() },
    body: JSON.stringify({ agentId: 'sprite-artist', prompt: 'crate 1' }),
  });
  const body = await response.text();
  const assetUrl = new URL(JSON.parse(body).output.url);
  const png = Buffer.from(await (await fetch(assetUrl)).arrayBuffer());
  const keep = ['content-type', 'x-request-id', 'x-credits-charged', 'x-credits-remaining'];
  const sample = {
    status: response.status,
    headers: Object.fromEntries(keep.map((name) => [name, response.headers.get(name)])),
    body,
    assetPath: assetUrl.pathname,
    pngBase64: png.toString('base64'),
  };
  if (data.canned) {
    // The split's transport alone: every request read whole, then the sample answer, no service.
    const { status, headers, body: text } = data.canned;
    server.service.dispatch = async (request) => {
      await request.text();
      return { status, headers: { ...headers }, body: text };
    };
  }
  serveQuestions(() => server.service.state.idempotency.size);
  process.send({ url: server.url, apiKey: server.apiKey, sample });
} else if (role === 'bare-server') {
  const http = await import('node:http');
  const png = Buffer.from(data.pngBase64 ?? '', 'base64');
  const server = http.createServer({ noDelay: true }, (req, res) => {
    if (req.method === 'POST') {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(data.status, { ...data.headers, 'content-length': String(Buffer.byteLength(data.body)) });
        res.end(data.body);
      });
    } else {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
      res.end(png);
    }
  });
  server.keepAliveTimeout = 5_000;
  serveQuestions();
  server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
} else if (role === 'load') {
  // Sends requests from CONNECTIONS workers: a warm-up then a timed window (rate), or `count` requests.
  const { Pool } = await import('undici');
  const pool = new Pool(data.url, { connections: CONNECTIONS, pipelining: 1 });
  const { keyed, numbered, ...base } = data.request;
  let sent = 0;
  let failed = 0;
  const one = async () => {
    sent++;
    const request = { ...base, headers: keyed ? { ...base.headers, 'idempotency-key': randomUUID() } : base.headers };
    if (numbered) request.body = JSON.stringify({ agentId: 'sprite-artist', prompt: `crate ${sent}` });
    const { statusCode, body } = await pool.request(request);
    await body.dump();
    if (statusCode >= 400 && !failed++) process.stderr.write(`bench: ${request.method} ${request.path} → ${statusCode}\n`);
  };
  process.once('message', async () => {
    let answer;
    if (data.count) {
      const worker = async () => {
        while (sent < data.count) await one();
      };
      await Promise.all(Array.from({ length: CONNECTIONS }, worker));
      answer = { sent };
    } else {
      const warmEnd = performance.now() + data.warmupMs;
      const end = warmEnd + data.windowMs;
      let atWindow = 0;
      let windowStart = 0;
      const worker = async () => {
        while (performance.now() < end) {
          await one();
          if (!windowStart && performance.now() >= warmEnd) {
            windowStart = performance.now();
            atWindow = sent;
          }
        }
      };
      await Promise.all(Array.from({ length: CONNECTIONS }, worker));
      answer = { perSecond: (sent - atWindow) / ((performance.now() - windowStart) / 1000), windowRequests: sent - atWindow };
    }
    if (failed) throw new Error(`${failed} of ${sent} requests failed`);
    await pool.close();
    process.send(answer);
  });
  process.send({ ready: true });
} else {
  await runAlone(import.meta, run);
}
