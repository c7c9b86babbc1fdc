#!/usr/bin/env node
// Re-processing against building (issue 30): 1,000 image assets with post steps, against
// `assetgen mock` in its own process. The fresh build (paid calls, downloads, the steps) of a
// manifest, against the re-process that makes the same outputs after a change of `post` only (the
// steps run again from the kept originals: no call). Each a fresh CLI process (`build -j 16`), in
// interleaved rounds, medians of BENCH_REPROCESS_ROUNDS (default 3); CPU beside wall (bench/usage.cjs).
// Goal: a re-process ≤ 0.8× the fresh build's wall. Then the re-process split by factor, each a
// fresh process on a project of its own built and changed the same way: the plan alone (`--dry-run`:
// manifest, lock, hashing every original and output), and the steps alone on the kept originals
// (a script reading each, running applyPostSteps, writing the result: no lock, no hashing).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAlone } from './table.mjs';
import { startExternalMock } from './external-mock.mjs';

const BIN = fileURLToPath(new URL('../bin/assetgen.js', import.meta.url));
const USAGE = fileURLToPath(new URL('./usage.cjs', import.meta.url));
const ASSETS = Number(process.env.BENCH_REPROCESS_ASSETS ?? 1000);
const ROUNDS = Number(process.env.BENCH_REPROCESS_ROUNDS ?? 3);

/** The steps built first, and the change of `post` that is then re-processed. */
const BEFORE = '[trim, {resize: {width: 64, height: 64, kernel: nearest}}]';
const AFTER = '[trim, {resize: {width: 96, height: 96, kernel: nearest}}]';
const AFTER_STEPS = ['trim', { resize: { width: 96, height: 96, kernel: 'nearest' } }];

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `node <args>` as a fresh process with the usage preload: wall and CPU ms. */
export function measured(args, env, cwd) {
  const usageFile = path.join(os.tmpdir(), `assetgen-bench-usage-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--require', USAGE, ...args], {
    env: { ...env, BENCH_USAGE_FILE: usageFile },
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  const wallMs = performance.now() - start;
  if (result.status !== 0) throw new Error(`node ${args.join(' ').slice(0, 200)} exited ${result.status}: ${result.stderr}`);
  const usage = JSON.parse(fs.readFileSync(usageFile, 'utf8'));
  fs.rmSync(usageFile, { force: true });
  return { wallMs, cpuMs: usage.cpuMs };
}

/** `assetgen <args>` likewise. */
export const measuredCli = (args, env, cwd) => measured([BIN, ...args], env, cwd);

export function manifest(count, post, tag) {
  const lines = [`defaults: { agent: sprite-artist, out: assets/, post: ${post} }`, 'assets:'];
  for (let i = 0; i < count; i++) lines.push(`  - id: icon-${i}`, `    prompt: icon number ${i} ${tag}`);
  return `${lines.join('\n')}\n`;
}

/** A project built with BEFORE (at the mock's pace, untimed), its manifest then changed to AFTER. */
export function builtProject(dir, env, name) {
  const project = path.join(dir, name);
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'assetgen.yaml'), manifest(ASSETS, BEFORE, name));
  measuredCli(['build', '-j', '16', '-q'], env, project);
  fs.writeFileSync(path.join(project, 'assetgen.yaml'), manifest(ASSETS, AFTER, name));
  return project;
}

export async function withMock(work) {
  const mock = await startExternalMock();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-bench-reprocess-'));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    ASSETGEN_CONFIG_DIR: path.join(dir, '.config'),
    ASSETGEN_BASE_URL: mock.url,
    ASSETGEN_API_KEY: mock.apiKey,
  };
  try {
    return await work(dir, env);
  } finally {
    mock.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  return withMock(async (dir, env) => {
    const runs = { fresh: [], reprocess: [], plan: [], steps: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const fresh = path.join(dir, `fresh-${round}`);
      fs.mkdirSync(fresh);
      fs.writeFileSync(path.join(fresh, 'assetgen.yaml'), manifest(ASSETS, AFTER, `fresh-${round}`));
      const changed = builtProject(dir, env, `changed-${round}`);
      runs.fresh.push(measuredCli(['build', '-j', '16', '-q'], env, fresh));
      runs.reprocess.push(measuredCli(['build', '-j', '16', '-q'], env, changed));
    }
    // The split, on one more project built and changed the same way (the plan changes nothing).
    const split = builtProject(dir, env, 'split');
    const originals = path.join(split, '.assetgen/originals');
    const stepsAlone = `
      import fs from 'node:fs';
      const { applyPostSteps } = await import(${JSON.stringify(fileURLToPath(new URL('../dist/imaging/post.js', import.meta.url)))});
      const { parsePostSteps } = await import(${JSON.stringify(fileURLToPath(new URL('../dist/imaging/post-steps.js', import.meta.url)))});
      const steps = parsePostSteps(${JSON.stringify(AFTER_STEPS)});
      const folder = ${JSON.stringify(originals)};
      // Each asset's folder (the results written beside them, from an earlier round, are not).
      for (const id of fs.readdirSync(folder).filter((name) => !name.endsWith('.out.png'))) {
        const [name] = fs.readdirSync(folder + '/' + id);
        fs.writeFileSync(folder + '/' + id + '.out.png', (await applyPostSteps(fs.readFileSync(folder + '/' + id + '/' + name), steps)).bytes);
      }`;
    for (let round = 1; round <= ROUNDS; round++) {
      runs.plan.push(measuredCli(['build', '--dry-run', '--json'], env, split));
      runs.steps.push(measured(['--input-type=module', '-e', stepsAlone], env, split));
    }
    const med = (name, key) => median(runs[name].map((one) => one[key]));
    const ratios = runs.reprocess.map((one, at) => (one.wallMs / runs.fresh[at].wallMs).toFixed(2)).join(', ');
    return [
      {
        figure: `re-processing ${ASSETS.toLocaleString('en')} image assets after a change of \`post\` only (\`build -j 16\`, median of ${ROUNDS} fresh processes, interleaved; per-round ratios ${ratios})`,
        measured: `${(med('reprocess', 'wallMs') / 1000).toFixed(2)} s (CPU ${(med('reprocess', 'cpuMs') / 1000).toFixed(2)} s)`,
        baseline: `the fresh build making the same outputs (paid calls to the mock, downloads, the same steps): ${(med('fresh', 'wallMs') / 1000).toFixed(2)} s (CPU ${(med('fresh', 'cpuMs') / 1000).toFixed(2)} s)`,
        ratio: med('reprocess', 'wallMs') / med('fresh', 'wallMs'),
        goal: '≤ 0.8×',
        met: med('reprocess', 'wallMs') / med('fresh', 'wallMs') <= 0.8,
      },
      {
        figure: `split: planning the re-process alone (\`build --dry-run --json\`: manifest, lock, hashing ${(2 * ASSETS).toLocaleString('en')} files; median of ${ROUNDS})`,
        measured: `${(med('plan', 'wallMs') / 1000).toFixed(2)} s (CPU ${(med('plan', 'cpuMs') / 1000).toFixed(2)} s)`,
        baseline: `the re-process: ${(med('reprocess', 'wallMs') / 1000).toFixed(2)} s`,
        ratio: med('plan', 'wallMs') / med('reprocess', 'wallMs'),
        goal: 'reference',
        met: undefined,
      },
      {
        figure: `split: the steps alone on the ${ASSETS.toLocaleString('en')} kept originals, one after another (a node script: read, applyPostSteps, write; no lock, no hashing; median of ${ROUNDS})`,
        measured: `${(med('steps', 'wallMs') / 1000).toFixed(2)} s (CPU ${(med('steps', 'cpuMs') / 1000).toFixed(2)} s)`,
        baseline: `the re-process: ${(med('reprocess', 'wallMs') / 1000).toFixed(2)} s`,
        ratio: med('steps', 'wallMs') / med('reprocess', 'wallMs'),
        goal: 'reference',
        met: undefined,
      },
    ];
  });
}

await runAlone(import.meta, run);
