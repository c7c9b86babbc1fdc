#!/usr/bin/env node
// A 200 MiB asset saved by the real CLI (`assetgen generate … -o file`: the generation call, then
// the download), against `curl -o` fetching the same URL, both whole processes (wall time from
// spawn to exit, nothing subtracted), from a node:http server in its own process: throughput
// (goal ≥ 0.6× curl) and the CLI's peak RSS (goal ≤ 80 MiB). Then the split: the same download
// built up one factor at a time, each in a fresh process (bench/download-split.mjs), for reference.
// Every contender runs once per round, in turns; figures are medians over the rounds (at least 5,
// default 7: BENCH_DOWNLOAD_RUNS), CPU (user + system, the kernel's account of each finished
// child) beside wall time.
import { fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VARIANTS } from './download-split.mjs';
import { runAlone } from './table.mjs';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'assetgen.js');
const SPLIT = path.join(ROOT, 'bench', 'download-split.mjs');
const PEAK_RSS = path.join(ROOT, 'test', 'support', 'peak-rss.cjs');
const SIZE = Number(process.env.BENCH_DOWNLOAD_MIB ?? 200) * 2 ** 20;
const RUNS = Math.max(5, Number(process.env.BENCH_DOWNLOAD_RUNS ?? 7));
const KEY = `agk_${'b'.repeat(40)}`;

/** CPU time of this process's finished children, in ms (Linux; undefined elsewhere). */
function childrenCpuMs() {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime, in 100 Hz ticks
  } catch {
    return undefined;
  }
}

/** Runs one contender to its exit: wall ms, CPU ms, and its peak RSS when it reports one. */
function measure(command, args, env, out, rssFile) {
  fs.rmSync(out, { force: true });
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { env, cwd: path.dirname(out), stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuMs = cpuBefore === undefined ? undefined : childrenCpuMs() - cpuBefore;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  if (fs.statSync(out).size !== SIZE) throw new Error(`${command} ${args.join(' ')} saved a file of the wrong size`);
  const report = rssFile ? fs.readFileSync(rssFile, 'utf8') : result.stdout.toString();
  const rssKiB = rssFile ? Number(report) : JSON.parse(report.trim().split('\n').pop() || '{}').maxRssKiB;
  return { ms, cpuMs, rssMiB: rssKiB ? rssKiB / 1024 : undefined };
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-bench-dl-'));
  const server = fork(SELF, ['server', String(SIZE)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const base = await new Promise((resolve, reject) => {
      server.once('message', (message) => resolve(message.url));
      server.once('exit', (code) => reject(new Error(`the server exited ${code}`)));
    });
    const url = `${base}/big.png`;
    const out = path.join(dir, 'big.png');
    const rssFile = path.join(dir, 'peak-rss');
    const cliEnv = {
      ...process.env,
      ASSETGEN_BASE_URL: base,
      ASSETGEN_API_KEY: KEY,
      ASSETGEN_CONFIG_DIR: path.join(dir, 'config'),
      ASSETGEN_STATE_DIR: path.join(dir, 'state'),
      ASSETGEN_TEST_PEAK_RSS_FILE: rssFile,
    };
    const contenders = [
      ['curl', () => measure('curl', ['-sf', '-o', out, url], process.env, out)],
      [
        'cli',
        () =>
          measure(
            process.execPath,
            ['--require', PEAK_RSS, BIN, 'generate', 'big', '-a', 'sprite-artist', '-o', out, '-q'],
            cliEnv,
            out,
            rssFile,
          ),
      ],
      ...VARIANTS.map((variant) => [variant, () => measure(process.execPath, [SPLIT, variant, url, out], process.env, out)]),
    ];
    const runs = Object.fromEntries(contenders.map(([name]) => [name, []]));
    for (let round = 0; round <= RUNS; round++) {
      // Round 0 warms the page cache, the server and the disk; it is not counted.
      for (const [name, once] of contenders) {
        const measured = once();
        if (round > 0) runs[name].push(measured);
      }
    }
    return rows(runs);
  } finally {
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

function summary(list) {
  const ms = median(list.map((m) => m.ms));
  const cpu = list.every((m) => m.cpuMs !== undefined) ? `, CPU ${median(list.map((m) => m.cpuMs)).toFixed(0)} ms` : '';
  return { ms, text: `${(SIZE / 1e6 / (ms / 1000)).toFixed(0)} MB/s (${ms.toFixed(0)} ms${cpu})` };
}

function rows(runs) {
  const mib = SIZE / 2 ** 20;
  const curl = summary(runs.curl);
  const cli = summary(runs.cli);
  const perRound = runs.cli.map((m, i) => runs.curl[i].ms / m.ms);
  const peak = Math.max(...runs.cli.map((m) => m.rssMiB));
  const result = [
    {
      figure: `\`assetgen generate … -o file\` saving a ${mib} MiB asset, whole process (median of ${RUNS}, in turns with curl; per-round ratios ${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)})`,
      measured: cli.text,
      baseline: `\`curl -o\`, same URL: ${curl.text}`,
      ratio: curl.ms / cli.ms,
      goal: '≥ 0.6×',
      met: curl.ms / cli.ms >= 0.6,
    },
    {
      figure: `the same, peak RSS of the CLI's process (most of ${RUNS})`,
      measured: `${peak.toFixed(0)} MiB`,
      baseline: 'the goal, 80 MiB',
      ratio: peak / 80,
      goal: '≤ 1× (80 MiB)',
      met: peak <= 80,
    },
  ];
  for (const variant of VARIANTS) {
    const split = summary(runs[variant]);
    const rss = Math.max(...runs[variant].map((m) => m.rssMiB));
    result.push({
      figure: `split: \`${variant}\` (bench/download-split.mjs), whole process`,
      measured: `${split.text}, peak RSS ${rss.toFixed(0)} MiB`,
      baseline: 'curl, above',
      ratio: curl.ms / split.ms,
      goal: 'reference',
      met: undefined,
    });
  }
  return result;
}

const role = process.argv[2];
if (role === 'server') {
  // The asset: a PNG signature, then filler (the CLI saves only what its bytes show to be media).
  const size = Number(process.argv[3]);
  const http = await import('node:http');
  const chunk = Buffer.alloc(1 << 20, 7);
  const first = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk.subarray(8)]);
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      req.resume();
      req.on('end', () => {
        const body = JSON.stringify({
          id: 'gen_big',
          status: 'succeeded',
          output: { url: '/big.png', contentType: 'image/png', bytes: size },
          credits: { charged: 10, remaining: 990 },
        });
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': size });
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece = (sent === 0 ? first : chunk).subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
} else if (!role) {
  await runAlone(import.meta, run);
}
