#!/usr/bin/env node
// A 200 MiB download through the SDK (client.download to a file) against curl on the same URL,
// both from a node:http server in its own process: throughput (goal ≥ 0.6× curl) and the peak
// RSS of the downloading process (goal ≤ 80 MiB).
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';

const SELF = fileURLToPath(import.meta.url);
const SIZE = Number(process.env.BENCH_DOWNLOAD_MIB ?? 200) * 2 ** 20;

function child(role, data) {
  return new Promise((resolve, reject) => {
    const proc = fork(SELF, [role, JSON.stringify(data ?? {})], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
    const sdk = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      execFileSync('curl', ['-sf', '-o', path.join(dir, 'curl.bin'), url]);
      curlTimes.push(performance.now() - start);
      const { message, proc: downloader } = await child('download', { url, file: path.join(dir, `sdk-${i}.bin`) });
      downloader.kill();
      sdk.push(message);
      fs.rmSync(path.join(dir, `sdk-${i}.bin`), { force: true });
    }
    const best = (list) => Math.min(...list);
    const curlMs = best(curlTimes);
    const sdkMs = best(sdk.map((m) => m.ms));
    const rss = Math.max(...sdk.map((m) => m.maxRssKiB)) / 1024;
    const mb = SIZE / 1e6;
    return [
      {
        figure: `${SIZE / 2 ** 20} MiB download, throughput (best of 3)`,
        measured: `${(mb / (sdkMs / 1000)).toFixed(0)} MB/s`,
        baseline: `curl, same URL: ${(mb / (curlMs / 1000)).toFixed(0)} MB/s`,
        ratio: curlMs / sdkMs,
        goal: '≥ 0.6×',
        met: curlMs / sdkMs >= 0.6,
      },
      {
        figure: `${SIZE / 2 ** 20} MiB download, peak RSS of the process`,
        measured: `${rss.toFixed(0)} MiB`,
        baseline: 'the goal, 80 MiB',
        ratio: rss / 80,
        goal: '≤ 1× (80 MiB)',
        met: rss <= 80,
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
} else if (role === 'download') {
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
