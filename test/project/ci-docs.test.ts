// docs/ci.md stays true: its workflows are valid YAML, and the assetgen commands they run work as
// written (shard 1 of 4 and the merge, against the real mock, with the manifest of the example).
// The GitHub workflow as a whole, too: two runs on fresh runners, the lock and the assets carried in
// the cache only the merge job saves, each shard passing on only the files it made — run 2 pays for
// what changed and nothing else, and the merge takes every shard.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseJson, runInProcess, tempHome, type CliResult } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { runsHere } from '../support/platform.js';
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

type Step = { uses?: string; run?: string; id?: string; if?: string; with?: Record<string, string> };
const stepUsing = (steps: Step[], action: string): Step[] => steps.filter((step) => step.uses === action);
const lines = (text = ''): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

it('carries the lock and the assets in a cache only the merge job saves, and each shard passes on only the files it made', () => {
  const [, github, cached, gitlab] = blocks;
  expect(github!.concurrency).toEqual({ group: 'assets-${{ github.ref }}', 'cancel-in-progress': false });
  const shard = github!.jobs.build.steps as Step[];
  const merge = github!.jobs.merge.steps as Step[];
  // Shards (the remote-cache ones too) only restore; no step of theirs saves a cache.
  for (const steps of [shard, cached!.jobs.build.steps as Step[]]) {
    expect(steps.filter((step) => /^actions\/cache(@|\/save)/.test(step.uses ?? ''))).toEqual([]);
    const [restore] = stepUsing(steps, 'actions/cache/restore@v4');
    expect(restore!.with).toEqual(stepUsing(merge, 'actions/cache/restore@v4')[0]!.with);
    expect(lines(restore!.with!.path)).toEqual(['assets', 'assetgen.lock']);
    expect(restore!.with!['restore-keys']).toBe('assets-');
    // The files it made, from its --json, packed whatever the build's exit; uploaded instead of assets/.
    const pack = steps.find((step) => step.run?.includes('jq -r'))!;
    expect(pack.if).toBe('always()');
    expect(pack.run).toContain('select(.outcome == "built" or .outcome == "resumed" or .outcome == "restored") | .files[]');
    const upload = lines(stepUsing(steps, 'actions/upload-artifact@v4')[0]!.with!.path);
    expect(upload).toContain('made-${{ matrix.shard }}.tgz');
    expect(upload).not.toContain('assets');
  }
  // The merge job: restore, merge, then unpack (only after a merge that succeeded), pack the sheets, save.
  const order = (test: (step: Step) => boolean): number => merge.findIndex(test);
  const join = order((step) => step.run?.includes('assetgen lock merge') === true);
  expect(merge[join]!.id).toBe('merge');
  expect(order((step) => step.uses === 'actions/cache/restore@v4')).toBeLessThan(join);
  expect(order((step) => step.run?.includes('tar -xzf') === true)).toBe(join + 1);
  const [save] = stepUsing(merge, 'actions/cache/save@v4');
  expect(save!.if).toBe("always() && steps.merge.outcome == 'success'");
  expect(save!.with!.key).toBe('assets-${{ github.run_id }}-${{ github.run_attempt }}');
  expect(save!.with!.path).toBe(stepUsing(merge, 'actions/cache/restore@v4')[0]!.with!.path);
  // GitLab likewise: shards pull the cache, the merge job pulls and pushes it; shards pass on made-*.tgz.
  expect(gitlab!['build-assets'].cache.policy).toBe('pull');
  expect(gitlab!['merge-locks'].cache).toMatchObject({ policy: 'pull-push', when: 'always', paths: gitlab!['build-assets'].cache.paths });
  expect(gitlab!['build-assets'].artifacts.paths).toEqual(['shard-*.lock', '.shard-*.lock.journal', 'build-*.json', 'made-*.tgz']);
  const script = gitlab!['merge-locks'].script as string[];
  expect(script.findIndex((line) => line.includes('tar -xzf'))).toBe(script.findIndex((line) => line.includes('lock merge')) + 1);
});

it("GitLab's shard lists the files its build made with node (no jq in node:20), as the jq line does", () => {
  const root = tempHome();
  try {
    const document = {
      items: [
        { id: 'a', outcome: 'built', files: ['assets/a.png'] },
        { id: 'b', outcome: 'unchanged', files: ['assets/b.png'] },
        { id: 'c', outcome: 'resumed', files: ['assets/c-1.png', 'assets/c-2.png'] },
        { id: 'd', outcome: 'restored', files: ['assets/d.png'] },
        { id: 'e', outcome: 'failed', files: [] },
      ],
    };
    fs.writeFileSync(path.join(root.cwd, 'build-2.json'), JSON.stringify(document));
    const [list] = blocks[3]!['build-assets'].after_script as string[];
    execFileSync('bash', ['-e', '-c', list!], { cwd: root.cwd, env: { ...root.env, CI_NODE_INDEX: '2' }, timeout: 20_000 });
    expect(fs.readFileSync(path.join(root.cwd, 'made-2.txt'), 'utf8')).toBe('assets/a.png\nassets/c-1.png\nassets/c-2.png\nassets/d.png\n');
  } finally {
    root.remove();
  }
});

// The workflow's shard step lists its files with jq, as a GitHub runner (which has it) runs it.
const HAS_JQ = runsHere(
  "docs/ci.md's GitHub workflow, run twice",
  spawnSync('jq', ['--version']).status === 0,
  'its shard step runs jq, which is not installed here',
);

/** A runner of docs/ci.md's GitHub workflow: each step of a job in a fresh workspace, the actions it uses played by copies. */
class Workflow {
  /** What the checkout gives (the manifest), the cache the merge job saves (empty until it does), and the artifacts of this run. */
  readonly repo: string;
  readonly cache: string;
  artifacts = '';
  constructor(
    readonly root: string,
    readonly env: NodeJS.ProcessEnv,
  ) {
    this.repo = path.join(root, 'repo');
    this.cache = path.join(root, 'cache');
    fs.mkdirSync(this.repo, { recursive: true });
  }

  /** One job, every step in order (all succeed here); the exit code of each assetgen command. */
  async job(name: 'build' | 'merge', shard?: number): Promise<{ cwd: string; codes: CliResult[] }> {
    const cwd = fs.mkdtempSync(path.join(this.root, `${name}-`));
    const codes: CliResult[] = [];
    const matrix = (text: string): string => text.replaceAll('${{ matrix.shard }}', String(shard));
    for (const step of blocks[1]!.jobs[name].steps as Step[]) {
      const paths = lines(step.with?.path).map(matrix);
      if (step.uses === 'actions/checkout@v4') fs.cpSync(this.repo, cwd, { recursive: true });
      else if (step.uses === 'actions/cache/restore@v4') {
        for (const one of paths)
          if (fs.existsSync(path.join(this.cache, one))) fs.cpSync(path.join(this.cache, one), path.join(cwd, one), { recursive: true });
      } else if (step.uses === 'actions/cache/save@v4') {
        fs.rmSync(this.cache, { recursive: true, force: true });
        for (const one of paths) fs.cpSync(path.join(cwd, one), path.join(this.cache, one), { recursive: true });
      } else if (step.uses === 'actions/upload-artifact@v4') {
        const to = path.join(this.artifacts, matrix(step.with!.name!));
        for (const one of paths)
          if (fs.existsSync(path.join(cwd, one))) fs.cpSync(path.join(cwd, one), path.join(to, one), { recursive: true });
      } else if (step.uses === 'actions/download-artifact@v4') {
        for (const name of fs.readdirSync(this.artifacts).filter((one) => one.startsWith('shard-')))
          fs.cpSync(path.join(this.artifacts, name), cwd, { recursive: true });
      } else if (step.run && step.run.trim() !== 'npm ci') codes.push(...(await this.run(matrix(step.run), cwd)));
    }
    return { cwd, codes };
  }

  /** A step's script: its assetgen commands in process (stdout to the file it is sent to), the rest by bash. */
  async run(script: string, cwd: string): Promise<CliResult[]> {
    const joined = script.replace(/\\\n\s*/g, ' ');
    const results: CliResult[] = [];
    for (const line of lines(joined)) {
      if (!line.includes('assetgen ')) {
        execFileSync('bash', ['-e', '-c', line], { cwd, env: { ...process.env, ...this.env }, timeout: 20_000 });
        continue;
      }
      const [args] = assetgenCommands(line);
      const result = await runInProcess(args!, { env: this.env, cwd });
      const target = /> (\S+)\s*$/.exec(line)?.[1];
      if (target) fs.writeFileSync(path.join(cwd, target), result.stdout);
      results.push(result);
    }
    return results;
  }

  /** A run: four shard jobs, then the merge job. */
  async runAll(): Promise<{ shards: CliResult[]; merge: { cwd: string; codes: CliResult[] } }> {
    this.artifacts = fs.mkdtempSync(path.join(this.root, 'artifacts-'));
    const shards: CliResult[] = [];
    for (const k of [1, 2, 3, 4]) shards.push(...(await this.job('build', k)).codes);
    return { shards, merge: await this.job('merge') };
  }
}

it.skipIf(!HAS_JQ)(
  'runs the GitHub workflow as written, twice on fresh runners, the service forgetting keys: run 2 pays for the changed asset only, every merge takes every shard',
  async () => {
    const ids = ['sword', 'shield', 'gem', 'coin', 'bow', 'axe', 'ring', 'orb'];
    const manifest = (changed = ''): string =>
      // Prices declared: the shards' --max-credits holds back no asset of unknown price on the first run.
      `prices: { agents: { icon-forge: 10 } }\ndefaults: { agent: icon-forge, out: assets/icons/ }\nassets:\n` +
      ids.map((id) => `  - { id: ${id}, prompt: a ${id === changed ? 'shiny ' : ''}${id} }\n`).join('') +
      `  - { id: icons, sheet: { from: [${ids.join(', ')}] }, out: assets/icons.png }\n`;
    const service = await startMock({ credits: 100_000 });
    const home = tempHome();
    try {
      await service.config({ faults: { rate: 0 }, idempotency: { maxAgeMs: 1 } });
      const flow = new Workflow(home.cwd, { ...home.env, ASSETGEN_BASE_URL: service.url, ASSETGEN_API_KEY: service.apiKey });
      const charges = async (): Promise<number> => (await service.state()).ledger.filter((entry) => entry.amount < 0).length;
      const expectSettled = async (run: Awaited<ReturnType<Workflow['runAll']>>): Promise<void> => {
        for (const result of [...run.shards, ...run.merge.codes]) expect(result.code, result.stderr).toBe(0);
        const after = await runInProcess(['build', '--dry-run', '--json'], { env: flow.env, cwd: run.merge.cwd });
        const items = parseJson(after).items as { id: string; status: string }[];
        expect(items.filter((item) => item.status !== 'up-to-date')).toEqual([]);
      };
      for (const [changed, paid] of [
        ['', ids.length],
        ['gem', 1],
        ['gem', 0],
      ] as const) {
        fs.writeFileSync(path.join(flow.repo, 'assetgen.yaml'), manifest(changed));
        const before = await charges();
        const run = await flow.runAll();
        await expectSettled(run);
        expect(await charges(), `run with ${changed || 'no'} change`).toBe(before + paid);
      }
    } finally {
      await service.close();
      home.remove();
    }
  },
);

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
