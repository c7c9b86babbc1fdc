#!/usr/bin/env node
// Start-up and one paid command, each against a baseline timed in the same run:
// - `assetgen --version` vs `node -e 0` (the floor every Node CLI pays);
// - `assetgen --help` vs a bare commander program declaring the same commands and options;
// - one `assetgen generate` (call + download) vs a minimal fetch script making the same two calls,
//   both against one mock service running in its own process.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';
import { startExternalMock } from './external-mock.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'assetgen.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);

/** Median wall time of `node <args>` over RUNS runs (two warm-ups first); alternates a and b. */
function medians(a, b, env = process.env) {
  const times = { a: [], b: [] };
  for (let i = 0; i < RUNS + 2; i++) {
    for (const [key, args] of [
      ['a', a],
      ['b', b],
    ]) {
      const start = process.hrtime.bigint();
      const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env, cwd: env.BENCH_CWD ?? ROOT });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
      if (i >= 2) times[key].push(ms);
    }
  }
  const median = (list) => list.sort((x, y) => x - y)[Math.floor(list.length / 2)];
  return [median(times.a), median(times.b)];
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

const MINIMAL_GENERATE = `
const [url, key, dir] = process.argv.slice(2);
const res = await fetch(url + '/api/v1/generate', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body: JSON.stringify({ agentId: 'sprite-artist', prompt: 'rusty sword' }) });
const body = await res.json();
const asset = await fetch(body.output.url);
(await import('node:fs')).writeFileSync(dir + '/' + body.id + '.png', Buffer.from(await asset.arrayBuffer()));
`;

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-bench-'));
  const rows = [];
  try {
    const [version, floor] = medians([BIN, '--version'], ['-e', '0']);
    rows.push(row('`assetgen --version`', version, '`node -e 0`', floor, 1.1));
    const bare = bareCommanderProgram(dir);
    const [help, bareHelp] = medians([BIN, '--help'], [bare, '--help']);
    rows.push(row('`assetgen --help`', help, 'bare commander program, same commands', bareHelp, 1.0));

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
        BENCH_CWD: out,
      };
      const [generate, minimal] = medians(
        [BIN, 'generate', 'rusty sword', '-a', 'sprite-artist', '-o', `${out}/`, '-q', '--force'],
        [script, mock.url, mock.apiKey, out],
        env,
      );
      rows.push(row('one `assetgen generate` (call + download)', generate, 'minimal `fetch` script, same two calls', minimal, 1.4));
    } finally {
      mock.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

function row(figure, ms, baselineName, baselineMs, goal) {
  const ratio = ms / baselineMs;
  return {
    figure,
    measured: `${ms.toFixed(1)} ms`,
    baseline: `${baselineName}: ${baselineMs.toFixed(1)} ms`,
    ratio,
    goal: `≤ ${goal}×`,
    met: ratio <= goal,
  };
}

await runAlone(import.meta, run);
