#!/usr/bin/env node
// A 200 MiB asset saved by the real CLI (`assetgen generate … -o file`: the generation call, then
// the download; the same command for a 1-byte asset, run alongside, gives the fixed cost to
// subtract), against curl fetching the same URL, both from a node:http server in its own
// process: throughput (goal ≥ 0.6× curl) and the peak RSS of the CLI's process (goal ≤ 80 MiB).
// The SDK's client.download() alone is measured too, for reference (no goal: a library leaves its
// host's garbage collector alone, see src/cli/memory.ts).
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const SIZE = Number(process.env.BENCH_DOWNLOAD_MIB ?? 200) * 2 ** 20;
const KEY = `agk_${'b'.repeat(40)}`;

function child(role, data) {
  return new Promise((resolve, reject) => {
    const proc = fork(SELF, [role, JSON.stringify(data ?? {})], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    proc.once('message', (message) => resolve({ message, proc }));
    proc.once('exit', (code) => code && reject(new Error(`${role} exited ${code}`)));
  });
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-bench-dl-'));
  const { message: server, proc } = await child('server', { size: SIZE });
  const url = `${server.url}/big.png`;
  try {
    const curlTimes = [];
    const cli = [];
    const sdk = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      execFileSync('curl', ['-sf', '-o', path.join(dir, 'curl.bin'), url]);
      curlTimes.push(performance.now() - start);
      const out = path.join(dir, `cli-${i}.png`);
      const { message: viaCli, proc: cliProc } = await child('cli', { baseUrl: server.url, file: out, prompt: 'big' });
      cliProc.kill();
      if (fs.statSync(out).size !== SIZE) throw new Error('the CLI saved a file of the wrong size');
      fs.rmSync(out, { force: true });
      // The same command for a 1-byte asset: start-up and the generation call, which the transfer
      // rate must not be charged with (start-up has its own figure in bench/startup.mjs).
      const { message: fixed, proc: fixedProc } = await child('cli', { baseUrl: server.url, file: out, prompt: 'tiny' });
      fixedProc.kill();
      fs.rmSync(out, { force: true });
      cli.push({ ...viaCli, ms: viaCli.ms - fixed.ms });
      const { message: viaSdk, proc: sdkProc } = await child('sdk', { url, file: path.join(dir, `sdk-${i}.bin`) });
      sdkProc.kill();
      sdk.push(viaSdk);
      fs.rmSync(path.join(dir, `sdk-${i}.bin`), { force: true });
    }
    const best = (list) => Math.min(...list);
    const curlMs = best(curlTimes);
    const cliMs = best(cli.map((m) => m.ms));
    const cliRss = Math.max(...cli.map((m) => m.maxRssKiB)) / 1024;
    const sdkRss = Math.max(...sdk.map((m) => m.maxRssKiB)) / 1024;
    const mb = SIZE / 1e6;
    const mib = SIZE / 2 ** 20;
    return [
      {
        figure: `\`assetgen generate\` saving a ${mib} MiB asset, transfer throughput (best of 3; start-up and the call subtracted)`,
        measured: `${(mb / (cliMs / 1000)).toFixed(0)} MB/s`,
        baseline: `curl, same URL: ${(mb / (curlMs / 1000)).toFixed(0)} MB/s`,
        ratio: curlMs / cliMs,
        goal: '≥ 0.6×',
        met: curlMs / cliMs >= 0.6,
      },
      {
        figure: `\`assetgen generate\` saving a ${mib} MiB asset, peak RSS of the process`,
        measured: `${cliRss.toFixed(0)} MiB`,
        baseline: 'the goal, 80 MiB',
        ratio: cliRss / 80,
        goal: '≤ 1× (80 MiB)',
        met: cliRss <= 80,
      },
      {
        figure: `SDK \`client.download()\` of ${mib} MiB, peak RSS (reference)`,
        measured: `${sdkRss.toFixed(0)} MiB`,
        baseline: 'the goal, 80 MiB',
        ratio: sdkRss / 80,
        goal: '(none: the host process decides)',
        met: true,
      },
    ];
  } finally {
    proc.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const [role, data] = [process.argv[2], process.argv[3] ? JSON.parse(process.argv[3]) : {}];
if (role === 'server') {
  const http = await import('node:http');
  const chunk = Buffer.alloc(1 << 20, 7);
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      let text = '';
      req.on('data', (part) => (text += part));
      req.on('end', () => {
        const tiny = JSON.parse(text).prompt === 'tiny';
        const body = JSON.stringify({
          id: 'gen_big',
          status: 'succeeded',
          output: { url: tiny ? '/tiny.png' : '/big.png', contentType: 'image/png', bytes: tiny ? 1 : data.size },
          credits: { charged: 10, remaining: 990 },
        });
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
      return;
    }
    if (req.url === '/tiny.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 1 });
      return void res.end('x');
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': data.size });
    let sent = 0;
    const pump = () => {
      while (sent < data.size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, data.size - sent));
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
} else if (role === 'cli') {
  // The CLI in this very process (its entry exits the process when done): the exit hook reports.
  const start = performance.now();
  process.on('exit', (code) => {
    if (code === 0) process.send?.({ ms: performance.now() - start, maxRssKiB: process.resourceUsage().maxRSS });
  });
  Object.assign(process.env, { ASSETGEN_BASE_URL: data.baseUrl, ASSETGEN_API_KEY: KEY, ASSETGEN_CONFIG_DIR: path.dirname(data.file) });
  process.argv = [process.argv[0], CLI, 'generate', data.prompt, '-a', 'sprite-artist', '-o', data.file, '-q'];
  (await import('node:module')).createRequire(import.meta.url)(CLI);
} else if (role === 'sdk') {
  const { createClient } = await import('../dist/index.js');
  const client = createClient({ baseUrl: data.url });
  const start = performance.now();
  await client.download(data.url, data.file);
  const ms = performance.now() - start;
  await client.close();
  process.send({ ms, maxRssKiB: process.resourceUsage().maxRSS });
} else {
  await runAlone(import.meta, run);
}
