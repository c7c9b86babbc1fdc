#!/usr/bin/env node
// Start-up and one paid command, each against a baseline timed in the same run. Every contender is
// its own fresh process, in interleaved rounds (the order rotating each round), medians of
// BENCH_RUNS rounds after two warm-ups; the CPU time of each process (user + system, written at its
// exit by bench/usage.cjs, preloaded into every contender alike) is reported beside wall time,
// which a loaded machine inflates unevenly.
// - `assetgen --version`, `--help` and `assetgen mcp` answering `initialize` vs `node -e 0`;
// - `assetgen --help` vs a bare commander program declaring the same commands (reference);
// - one `assetgen generate` (call + download) vs a minimal fetch script making the same two calls,
//   both against one mock service running in its own process.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';
import { startExternalMock } from './external-mock.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'assetgen.js');
const USAGE = fileURLToPath(new URL('./usage.cjs', import.meta.url));
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 21));

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;
const INITIALIZED = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`;
const TOOLS_LIST = `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`;

/**
 * One fresh `node <args>`: resolves with its wall time — to its exit, or (`until`) to the first
 * stdout line that contains `until`, after which its stdin is closed — and its CPU time.
 */
function timed(args, { env = process.env, cwd = ROOT, input, until } = {}) {
  const usageFile = path.join(os.tmpdir(), `assetgen-bench-usage-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    let wall;
    const child = spawn(process.execPath, ['--require', USAGE, ...args], {
      env: { ...env, BENCH_USAGE_FILE: usageFile },
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (until && wall === undefined && out.includes(until)) {
        wall = Number(process.hrtime.bigint() - start) / 1e6;
        child.stdin.end();
      }
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      wall ??= Number(process.hrtime.bigint() - start) / 1e6;
      try {
        if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${err}`);
        if (until && !out.includes(until)) throw new Error(`node ${args.join(' ')} never printed ${until}`);
        const { cpuMs } = JSON.parse(fs.readFileSync(usageFile, 'utf8'));
        resolve({ wall, cpu: cpuMs });
      } catch (error) {
        reject(error);
      } finally {
        fs.rmSync(usageFile, { force: true });
      }
    });
    if (input) child.stdin.write(input);
    if (!until) child.stdin.end();
  });
}

/** Runs every contender once per round, rotating the order; medians (and the spread) of wall and CPU. */
async function rounds(contenders) {
  const names = Object.keys(contenders);
  const samples = Object.fromEntries(names.map((name) => [name, { wall: [], cpu: [] }]));
  for (let round = 0; round < RUNS + 2; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const result = await contenders[name]();
      if (round < 2) continue; // warm-ups
      samples[name].wall.push(result.wall);
      samples[name].cpu.push(result.cpu);
    }
  }
  const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
  const quartiles = (list) => {
    const sorted = [...list].sort((x, y) => x - y);
    return [sorted[Math.floor(sorted.length / 4)], sorted[Math.floor((3 * sorted.length) / 4)]];
  };
  return Object.fromEntries(
    names.map((name) => [
      name,
      { wall: median(samples[name].wall), cpu: median(samples[name].cpu), spread: quartiles(samples[name].wall) },
    ]),
  );
}

/** A single-file commander program with the same commands and options as ours, nothing else. */
function bareCommanderProgram(dir) {
  const require = createRequire(import.meta.url);
  const { buildProgram } = require(path.join(ROOT, 'dist', 'program.cjs'));
  const { program } = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut() {}, writeErr() {} });
  const lines = [`const { Command } = require(${JSON.stringify(require.resolve('commander'))});`];
  const declare = (command, variable) => {
    for (const option of command.options.filter((o) => o.long !== '--version'))
      lines.push(`${variable}.option(${JSON.stringify(option.flags)}, ${JSON.stringify(option.description)});`);
    command.commands.forEach((sub, index) => {
      const child = `${variable}_${index}`;
      lines.push(`const ${child} = ${variable}.command(${JSON.stringify(sub.name())}).description(${JSON.stringify(sub.description())});`);
      for (const arg of sub.registeredArguments)
        lines.push(`${child}.argument(${JSON.stringify(arg.required ? `<${arg.name()}>` : `[${arg.name()}]`)});`);
      if (!sub.commands.length) lines.push(`${child}.action(() => {});`);
      declare(sub, child);
    });
  };
  lines.push(
    `const program = new Command('assetgen').description(${JSON.stringify(program.description())}).version('0.0.0', '-V, --version');`,
  );
  declare(program, 'program');
  lines.push('program.parse(process.argv);');
  const file = path.join(dir, 'bare-commander.cjs');
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

// Sends an Idempotency-Key, as every real client does (and the CLI's generate).
const MINIMAL_GENERATE = `
const [url, key, dir] = process.argv.slice(2);
const res = await fetch(url + '/api/v1/generate', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify({ agentId: 'sprite-artist', prompt: 'rusty sword' }) });
const body = await res.json();
const asset = await fetch(body.output.url);
(await import('node:fs')).writeFileSync(dir + '/' + body.id + '.png', Buffer.from(await asset.arrayBuffer()));
`;

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-bench-'));
  const rows = [];
  try {
    const bare = bareCommanderProgram(dir);
    const sdkBundle = path.join(ROOT, 'dist', 'mcp', 'sdk.js');
    const mcpEnv = {
      ...process.env,
      ASSETGEN_STATE_DIR: path.join(dir, 'state'),
      ASSETGEN_BASE_URL: 'http://127.0.0.1:9',
      ASSETGEN_API_KEY: 'k',
    };
    const mcp = (input, until) => () => timed([BIN, 'mcp'], { env: mcpEnv, cwd: dir, input, until });
    const t = await rounds({
      node: () => timed(['-e', '0']),
      version: () => timed([BIN, '--version']),
      help: () => timed([BIN, '--help']),
      bare: () => timed([bare, '--help']),
      initialize: mcp(INITIALIZE, '"id":1'),
      toolsList: mcp(INITIALIZE + INITIALIZED + TOOLS_LIST, '"id":2'),
      sdk: () => timed(['--input-type=module', '-e', `await import(${JSON.stringify(sdkBundle)})`]),
    });
    const floor = ['`node -e 0`', t.node];
    rows.push(row('`assetgen --version`', t.version, floor, 1.1));
    rows.push(row('`assetgen --help`', t.help, floor, 1.15));
    rows.push(row('`assetgen --help` (reference)', t.help, ['bare commander program, same commands', t.bare]));
    rows.push(row('`assetgen mcp` answering `initialize` (spawn → result on stdout)', t.initialize, floor, 2.5));
    rows.push(row('`assetgen mcp` answering `tools/list` after `initialize` (reference)', t.toolsList, floor));
    rows.push(row('loading the bundled MCP SDK and zod alone (`dist/mcp/sdk.js`; reference)', t.sdk, floor));

    const mock = await startExternalMock();
    try {
      const script = path.join(dir, 'minimal-generate.mjs');
      fs.writeFileSync(script, MINIMAL_GENERATE);
      const out = path.join(dir, 'out');
      fs.mkdirSync(out);
      const env = {
        ...process.env,
        ASSETGEN_BASE_URL: mock.url,
        ASSETGEN_API_KEY: mock.apiKey,
        ASSETGEN_STATE_DIR: path.join(dir, 'state'),
      };
      const g = await rounds({
        generate: () => timed([BIN, 'generate', 'rusty sword', '-a', 'sprite-artist', '-o', `${out}/`, '-q', '--force'], { env, cwd: out }),
        minimal: () => timed([script, mock.url, mock.apiKey, out], { env, cwd: out }),
      });
      rows.push(row('one `assetgen generate` (call + download)', g.generate, ['minimal `fetch` script, same two calls', g.minimal], 1.4));
    } finally {
      mock.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** A row: wall-time medians as the figure, CPU medians and the wall spread (quartiles) beside. */
function row(figure, measured, [baselineName, baseline], goal) {
  const ratio = measured.wall / baseline.wall;
  const ms = (value) => `${value.toFixed(1)} ms`;
  const describe = (m) => `${ms(m.wall)} (IQR ${m.spread.map((v) => v.toFixed(0)).join('–')}; CPU ${ms(m.cpu)})`;
  return {
    figure,
    measured: describe(measured),
    baseline: `${baselineName}: ${describe(baseline)}; CPU ratio ${(measured.cpu / baseline.cpu).toFixed(2)}×`,
    ratio,
    goal: goal === undefined ? 'reference' : `≤ ${goal}×`,
    met: goal === undefined ? undefined : ratio <= goal,
  };
}

await runAlone(import.meta, run);
