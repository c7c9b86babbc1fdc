#!/usr/bin/env node
// The bundled mock under load, against a bare node:http server answering the same bytes, both in
// their own process, driven by one load process (undici Pool, 10 keep-alive connections, 3 s):
// - POST /api/v1/generate (the JSON answer of a real mock call), goal ≥ 0.3× the bare server;
// - GET of a generated asset (the same PNG bytes), goal ≥ 0.5×;
// - heap after 100k generate requests (through the mock's own request path), goal ≤ 64 MiB.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';

const SELF = fileURLToPath(import.meta.url);
const DURATION_MS = Number(process.env.BENCH_MOCK_MS ?? 3000);
const HEAP_REQUESTS = Number(process.env.BENCH_HEAP_REQUESTS ?? 100_000);

/** Runs one role of this file in a child process; resolves with the message it sends. */
function child(role, data, execArgv = []) {
  return new Promise((resolve, reject) => {
    const proc = fork(SELF, [role, JSON.stringify(data ?? {})], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    proc.once('message', (message) => resolve({ message, proc }));
    proc.once('exit', (code) => code && reject(new Error(`${role} exited ${code}`)));
  });
}

async function load(url, request) {
  const { message, proc } = await child('load', { url, request, durationMs: DURATION_MS });
  proc.kill();
  return message.perSecond;
}

export async function run() {
  const { message: mock, proc: mockProc } = await child('mock-server');
  const { message: bare, proc: bareProc } = await child('bare-server', { generateJson: mock.generateJson, pngBase64: mock.pngBase64 });
  const generate = {
    method: 'POST',
    path: '/api/v1/generate',
    headers: { authorization: `Bearer ${mock.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agentId: 'sprite-artist', prompt: 'crate' }),
  };
  const asset = { method: 'GET', path: mock.assetPath };
  const rows = [];
  try {
    const mockGenerate = await load(mock.url, generate);
    const bareGenerate = await load(bare.url, generate);
    rows.push(rate('mock `POST /api/v1/generate`, 10 connections', mockGenerate, bareGenerate, 0.3));
    const mockAsset = await load(mock.url, asset);
    const bareAsset = await load(bare.url, { ...asset, path: '/asset.png' });
    rows.push(rate('mock asset `GET /files/…png`, 10 connections', mockAsset, bareAsset, 0.5));
  } finally {
    mockProc.kill();
    bareProc.kill();
  }
  const { message: heap, proc } = await child('heap', { requests: HEAP_REQUESTS }, ['--expose-gc']);
  proc.kill();
  const mib = heap.heapUsed / 2 ** 20;
  rows.push({
    figure: `mock heap after ${HEAP_REQUESTS.toLocaleString('en')} generate requests`,
    measured: `${mib.toFixed(1)} MiB`,
    baseline: `the goal, 64 MiB (fresh mock: ${(heap.heapStart / 2 ** 20).toFixed(1)} MiB)`,
    ratio: mib / 64,
    goal: '≤ 1× (64 MiB)',
    met: mib <= 64,
  });
  return rows;
}

function rate(figure, value, baseline, goal) {
  const ratio = value / baseline;
  return {
    figure,
    measured: `${Math.round(value).toLocaleString('en')} req/s`,
    baseline: `bare node:http: ${Math.round(baseline).toLocaleString('en')} req/s`,
    ratio,
    goal: `≥ ${goal}×`,
    met: ratio >= goal,
  };
}

// ── child roles ──────────────────────────────────────────────────────────────────────────────────
const [role, data] = [process.argv[2], process.argv[3] ? JSON.parse(process.argv[3]) : {}];

if (role === 'mock-server') {
  const { startMockServer } = await import('../dist/mock/index.js');
  const server = await startMockServer({ credits: 1e12 });
  server.service.state.config.latencyMs = 0;
  const response = await fetch(`${server.url}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agentId: 'sprite-artist', prompt: 'crate' }),
  });
  const generateJson = await response.text();
  const assetUrl = new URL(JSON.parse(generateJson).output.url);
  const png = Buffer.from(await (await fetch(assetUrl)).arrayBuffer());
  process.send({ url: server.url, apiKey: server.apiKey, generateJson, assetPath: assetUrl.pathname, pngBase64: png.toString('base64') });
} else if (role === 'bare-server') {
  const http = await import('node:http');
  const png = Buffer.from(data.pngBase64, 'base64');
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(data.generateJson);
      });
    } else {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.end(png);
    }
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
} else if (role === 'load') {
  const { Pool } = await import('undici');
  const pool = new Pool(data.url, { connections: 10, pipelining: 1 });
  let done = 0;
  let failed = 0;
  const end = performance.now() + data.durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const { statusCode, body } = await pool.request(data.request);
      await body.dump();
      if (statusCode >= 400) failed++;
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 10 }, worker));
  const seconds = (performance.now() - start) / 1000;
  if (failed) throw new Error(`${failed} of ${done} requests failed`);
  await pool.close();
  process.send({ perSecond: done / seconds });
} else if (role === 'heap') {
  const { startMockServer } = await import('../dist/mock/index.js');
  const server = await startMockServer({ credits: 1e12 });
  server.service.state.config.latencyMs = 0;
  const { Pool } = await import('undici');
  const pool = new Pool(server.url, { connections: 10 });
  globalThis.gc();
  const heapStart = process.memoryUsage().heapUsed;
  let sent = 0;
  const request = {
    method: 'POST',
    path: '/api/v1/generate',
    headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
  };
  const worker = async () => {
    while (sent < data.requests) {
      sent++;
      const { body } = await pool.request({ ...request, body: JSON.stringify({ agentId: 'sprite-artist', prompt: `crate ${sent}` }) });
      await body.dump();
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  globalThis.gc();
  process.send({ heapStart, heapUsed: process.memoryUsage().heapUsed });
} else {
  await runAlone(import.meta, run);
}
