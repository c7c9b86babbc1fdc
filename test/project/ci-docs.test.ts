// docs/ci.md stays true: its workflows are valid YAML, and the assetgen commands they run work as
// written (shard 1 of 4 and the merge, against the real mock, with the manifest of the example).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { startRemoteCache } from '../support/remote-cache.js';
import { assetgenCommands, EXAMPLE, writeFiles } from './helpers.js';

const DOC = fs.readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
const blocks = [...DOC.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => parse(match[1]!) as Record<string, any>);

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock({ credits: 10_000 });
  await mock.config({ videoPollAfterMs: 20 });
});
afterAll(() => mock.close());

it('has a pull-request plan job, a GitHub Actions matrix of four shards, one with the remote cache and a GitLab parallel job, all valid YAML', () => {
  expect(blocks).toHaveLength(4);
  const [pr, github, cached, gitlab] = blocks;
  expect(cached!.jobs.build.strategy.matrix.shard).toEqual([1, 2, 3, 4]);
  // The cache's URL and token are secrets, never written in the workflow.
  expect(cached!.jobs.build.env.ASSETGEN_REMOTE_CACHE_URL).toMatch(/^\$\{\{ secrets\./);
  expect(cached!.jobs.build.env.ASSETGEN_REMOTE_CACHE_TOKEN).toMatch(/^\$\{\{ secrets\./);
  expect(Object.keys(pr!.on)).toEqual(['pull_request']);
  expect(pr!.jobs.plan.permissions['pull-requests']).toBe('write');
  expect(github!.jobs.build.strategy.matrix.shard).toEqual([1, 2, 3, 4]);
  expect(github!.jobs.merge.needs).toBe('build');
  expect(gitlab!['build-assets'].parallel).toBe(4);
});

it('runs the GitHub workflow commands as written: shard 1/4 with its own lock, then the merge', async () => {
  const home = tempHome();
  try {
    writeFiles(home.cwd, { 'assetgen.yaml': EXAMPLE });
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
    const steps = (blocks[1]!.jobs.build.steps as { run?: string }[]).map((step) => step.run ?? '').join('\n');
    const [shard] = assetgenCommands(steps.replaceAll('${{ matrix.shard }}', '1'));
    expect(shard).toContain('--lock-out');
    const built = await runInProcess(shard!, { env, cwd: home.cwd });
    expect(built.code, built.stderr).toBe(0);
    expect(fs.existsSync(path.join(home.cwd, 'shard-1.lock'))).toBe(true);
    // The other shards' locks, as their jobs would have uploaded them (here: copies of shard 1's).
    for (const k of [2, 3, 4]) fs.copyFileSync(path.join(home.cwd, 'shard-1.lock'), path.join(home.cwd, `shard-${k}.lock`));
    const merge = (blocks[1]!.jobs.merge.steps as { run?: string }[]).map((step) => step.run ?? '').join('\n');
    const [merged] = assetgenCommands(merge);
    const result = await runInProcess(merged!, { env, cwd: home.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(fs.existsSync(path.join(home.cwd, 'assetgen.lock'))).toBe(true);
  } finally {
    home.remove();
  }
});

it("runs the remote-cache job as written: after one build uploaded the assets, a fresh runner's four shards restore them all for 0 credits", async () => {
  const home = tempHome();
  const cache = await startRemoteCache();
  try {
    writeFiles(home.cwd, { 'assetgen.yaml': EXAMPLE });
    const job = blocks[2]!.jobs.build;
    const env = {
      ...home.env,
      ASSETGEN_BASE_URL: mock.url,
      ASSETGEN_API_KEY: mock.apiKey,
      ASSETGEN_REMOTE_CACHE_URL: cache.url,
      ASSETGEN_REMOTE_CACHE_TOKEN: cache.token,
      ASSETGEN_REMOTE_CACHE_TEAM: job.env.ASSETGEN_REMOTE_CACHE_TEAM,
    };
    // An earlier run built everything (and uploaded it); the lock it left is committed.
    const first = await runInProcess(['build', '--yes', '--max-credits', 'none', '--json'], { env, cwd: home.cwd });
    expect(first.code, first.stderr).toBe(0);
    const assets = JSON.parse(first.stdout).totals.built as number;
    expect(assets).toBeGreaterThan(1);
    // A fresh runner: the lock, no asset files; each shard's command as the job runs it.
    for (const folder of ['assets', '.assetgen']) fs.rmSync(path.join(home.cwd, folder), { recursive: true, force: true });
    const before = (await mock.state()).ledger.length;
    const steps = (job.steps as { run?: string }[]).map((step) => step.run ?? '').join('\n');
    let restored = 0;
    for (const k of [1, 2, 3, 4]) {
      const [shard] = assetgenCommands(steps.replaceAll('${{ matrix.shard }}', String(k)));
      const result = await runInProcess(shard!, { env, cwd: home.cwd });
      expect(result.code, result.stderr).toBe(0);
      const document = JSON.parse(result.stdout);
      expect(document.totals.credits).toBe(0);
      restored += document.totals.restored as number;
    }
    expect(restored).toBe(assets);
    expect((await mock.state()).ledger.length).toBe(before);
  } finally {
    await cache.close();
    home.remove();
  }
});

it('runs the pull-request job as written: the plan in Markdown, exit 8 (a failed check) when it passes the budget, nothing paid', async () => {
  const home = tempHome();
  try {
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url };
    const steps = (blocks[0]!.jobs.plan.steps as { run?: string }[]).map((step) => step.run ?? '').join('\n');
    const [plan] = assetgenCommands(steps);
    expect(plan).toEqual(['build', '--dry-run', '--format', 'markdown']);
    const before = (await mock.state()).ledger.length;
    // Over the budget: the video alone costs 180.
    writeFiles(home.cwd, { 'assetgen.yaml': `budget: 100\n${EXAMPLE}` });
    const over = await runInProcess(plan!, { env, cwd: home.cwd });
    expect(over.code, over.stderr).toBe(8);
    expect(over.stdout).toMatch(/^### assetgen build plan/);
    expect(over.stdout).toContain('**Estimated cost:** 180 credits + unknown for `sword`, `hero`');
    expect(over.stdout).toContain('⚠️ **Over budget');
    // Within it: only assets of known price.
    writeFiles(home.cwd, { 'assetgen.yaml': 'budget: 500\nassets:\n  - { id: torch, video: torch flickering, out: fx/ }\n' });
    const within = await runInProcess(plan!, { env, cwd: home.cwd });
    expect(within.code, within.stderr).toBe(0);
    expect(within.stdout).toContain('**Within the budget of 500 credits (`budget: 500` in assetgen.yaml).**');
    expect((await mock.state()).ledger.length).toBe(before);
  } finally {
    home.remove();
  }
});
