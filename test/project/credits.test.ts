// Every credit figure of a build against the mock's ledger: the cap at -j 16 and at 0, resumes
// after Ctrl-C (the charge recorded with the job, the resume adding to it), replays charged 0,
// the in-flight poll at Ctrl-C, estimates that say what they do not know, the manifest's budget.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { jsonError, parseJson, runCli, type CliResult } from '../support/cli.js';
import { disagreements, lockVersusLedger, netSpend } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const icons = (n: number, from = 0): string =>
  Array.from({ length: n }, (_, i) => `  - { id: icon-${from + i}, prompt: icon number ${from + i} }`).join('\n');
const manifest = (body: string, top = ''): string => `${top}defaults: { agent: icon-forge, out: assets/ }\nassets:\n${body}\n`;
const HERO = '  - { id: hero, workflow: wf_sprite_sheet, set: { character: a dwarf miner }, out: assets/hero/ }';
const TORCH = '  - { id: torch, video: torch flickering on a wall, out: assets/fx/ }';

const project = useMockProject({
  mock: { credits: 100_000 },
  config: { credits: 100_000, videoPollAfterMs: 20, videoSteps: 2, faults: { rate: 0 } },
});
const build = (args: string[], interrupt?: AbortSignal) => project.run(['build', ...args], { interrupt });
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const items = (result: CliResult) =>
  parseJson(result).items as { id: string; outcome: string; credits: number; cost?: number; cap?: string }[];
const outcomes = (result: CliResult) => Object.fromEntries(items(result).map((item) => [item.id, item.outcome]));
/** Runs `work` and returns what the ledger gained meanwhile. */
async function spentDuring(work: () => Promise<unknown>): Promise<number> {
  const before = (await project.ledger()).length;
  await work();
  return netSpend((await project.ledger()).slice(before));
}
const lock = () => readLock(path.join(project.cwd, 'assetgen.lock'));

describe('--max-credits by the ledger', () => {
  it('20 new images of a known price at -j 16 under a cap of 30: exactly 30 spent, the rest held back with exit 8', async () => {
    write(manifest(icons(21)));
    expect((await build(['icon-0'])).code).toBe(0); // icon-forge's price is now recorded
    let result!: CliResult;
    const spent = await spentDuring(async () => (result = await build(['-j', '16', '--max-credits', '30', '--json'])));
    expect(result.code, result.stderr).toBe(8);
    expect(spent).toBe(30);
    expect(parseJson(result).totals).toMatchObject({ built: 3, capped: 17, credits: 30 });
    expect(parseJson(result).credits).toMatchObject({ charged: 30, refunded: 0 });
    expect(
      items(result)
        .filter((item) => item.outcome === 'capped')
        .every((item) => item.cap === 'over-cap'),
    ).toBe(true);
    expect(jsonError(result)).toMatchObject({ code: 'credit_cap', exitCode: 8 });
    // Each asset the cap held back has a line of its own, as a finished asset does.
    expect(result.stderr.match(/^- icon-\d+ {2}capped: would pass --max-credits 30/gm)).toHaveLength(17);
  });

  it('a cap of 0 charges nothing, whatever is known; the manifest budget is the default cap, the flag overrides it', async () => {
    write(manifest(icons(4)));
    expect((await build(['icon-0'])).code).toBe(0);
    expect(await spentDuring(async () => expect((await build(['-j', '16', '--max-credits', '0'])).code).toBe(8))).toBe(0);
    write(manifest(icons(4), 'budget: 15\n'));
    expect(await spentDuring(async () => expect((await build(['-j', '16'])).code).toBe(8))).toBe(10);
    expect(await spentDuring(async () => expect((await build(['-j', '16', '--max-credits', 'none'])).code).toBe(0))).toBe(20);
  });

  it('a workflow and a video: polls are asked of the budget one by one, and the cap holds to the credit', async () => {
    write(manifest([HERO, TORCH].join('\n')));
    expect((await build(['--yes', '--max-credits', 'none'])).code).toBe(0);
    const full = lock().assets.torch!.credits as number; // 180 + its polls
    write(manifest([HERO.replace('dwarf', 'elf'), TORCH.replace('torch flickering', 'candle flickering')].join('\n')));
    let result!: CliResult;
    const cap = full + 2;
    const spent = await spentDuring(async () => (result = await build(['--yes', '-j', '16', '--max-credits', String(cap), '--json'])));
    expect(spent).toBeLessThanOrEqual(cap);
    expect(result.code, result.stderr).toBe(8);
  });
});

describe('resumes, replays and Ctrl-C against the ledger', () => {
  it("a Ctrl-C'd workflow and video, resumed: the lock records their whole cost, the in-flight poll is counted, the next estimate is right", async () => {
    write(manifest([HERO, TORCH].join('\n')));
    await project.mock.config({ latencyMs: 150, videoSteps: 8, videoPollAfterMs: 50 });
    const controller = new AbortController();
    // Ctrl-C once both paid jobs are recorded with their ids (the run then has three polls of 150 ms
    // to go: a poll is in flight most of that time), checked every 20 ms, at most 5 s.
    const lockFile = path.join(project.cwd, 'assetgen.lock');
    const bothInFlight = (): boolean => {
      const assets = readLock(lockFile).assets;
      return Boolean(assets.hero?.job?.jobId && assets.torch?.job?.jobId);
    };
    const watcher = setInterval(() => bothInFlight() && controller.abort(), 20);
    const deadline = setTimeout(() => controller.abort(), 5_000);
    let interrupted!: CliResult;
    const spentInterrupted = await spentDuring(async () => (interrupted = await build(['--yes', '--json'], controller.signal)));
    clearInterval(watcher);
    clearTimeout(deadline);
    expect(interrupted.code, interrupted.stderr).toBe(130);
    // What the build says it spent is what the ledger took, the poll in flight at Ctrl-C included.
    expect(parseJson(interrupted).credits.charged).toBe(spentInterrupted);
    expect(outcomes(interrupted)).toEqual({ hero: 'interrupted', torch: 'interrupted' });
    expect(items(interrupted).every((item) => /assetgen build (hero|torch)/.test((item as { resume?: string }).resume ?? ''))).toBe(true);
    expect(lock().assets.hero!.job!.credits).toBeGreaterThanOrEqual(15); // 3 nodes × 5, then its polls
    expect(lock().assets.torch!.job!.credits).toBeGreaterThanOrEqual(180);

    await project.mock.config({ latencyMs: 0 });
    const resumed = await build(['--yes', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(outcomes(resumed)).toEqual({ hero: 'resumed', torch: 'resumed' });
    const rows = lockVersusLedger(project.cwd, await project.ledger());
    expect(disagreements(rows)).toEqual({});
    expect(rows.torch![1]).toBeGreaterThan(180);
    expect(netSpend(await project.ledger())).toBe((rows.hero![1] as number) + (rows.torch![1] as number));
    // The recorded cost is the whole cost: the next plan of a changed workflow estimates it.
    write(manifest([HERO.replace('dwarf', 'gnome'), TORCH].join('\n')));
    const plan = parseJson(await build(['--dry-run', '--json']));
    expect(plan.estimate).toEqual({ credits: rows.hero![1], unknown: [] });
  });

  it('a replay is charged 0 in --json, the summary and the lock; the ledger has no new entry', async () => {
    const coin = (dir: string) =>
      project.run(['generate', 'gold coin', '--agent', 'icon-forge', '--idempotency-key', 'coin-1', '-o', dir, '--json']);
    const first = await coin('a/');
    expect(first.code, first.stderr).toBe(0);
    const entries = (await project.ledger()).length;
    const second = await coin('b/');
    expect(second.code, second.stderr).toBe(0);
    expect(parseJson(second).credits).toMatchObject({ charged: 0 });
    expect(await project.ledger()).toHaveLength(entries);

    // A rebuild of deleted files asks again with the same key: a replay, free, the lock's cost kept.
    write(manifest(icons(2)));
    expect((await build([])).code).toBe(0);
    fs.rmSync(path.join(project.cwd, 'assets'), { recursive: true });
    let rebuilt!: CliResult;
    expect(await spentDuring(async () => (rebuilt = await build(['--json'])))).toBe(0);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(parseJson(rebuilt).totals).toMatchObject({ built: 2, credits: 0 });
    expect(parseJson(rebuilt).credits.charged).toBe(0);
    expect(lock().assets['icon-0']!.credits).toBe(10);
    expect(disagreements(lockVersusLedger(project.cwd, await project.ledger()))).toEqual({});
    expect((await build([])).stderr).toMatch(/; 0 credits\./);
  });

  it('--force is a new generation: a new key, a new charge', async () => {
    write(manifest(icons(1)));
    expect((await build([])).code).toBe(0);
    expect(await spentDuring(async () => expect((await build(['--force'])).code).toBe(0))).toBe(10);
    expect(lock().assets['icon-0']!.generation).toBe(2);
    expect(disagreements(lockVersusLedger(project.cwd, await project.ledger()))).toEqual({});
  });
});

describe('two machines, one spec', () => {
  it('two build processes on two copies of one project at once: each asset charged once; --force is a new charge', async () => {
    const text = manifest([...icons(6).split('\n'), HERO].join('\n'));
    const copies = [path.join(project.cwd, 'ci-a'), path.join(project.cwd, 'ci-b')];
    for (const dir of copies) writeFiles(dir, { 'assetgen.yaml': text });
    // With a session configured (as CI would), polls are free: each lock can agree with the ledger to the
    // credit. (With a key only, each machine following the one shared run pays for its own polls.)
    const env = { ...project.env(), ASSETGEN_SESSION: project.mock.sessionCookie };
    const results = await Promise.all(copies.map((cwd) => runCli(['build', '-j', '4', '--json'], { env, cwd })));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const paid = (await project.ledger()).filter((entry) => !entry.reason.startsWith('poll'));
    expect(paid.map((entry) => entry.reason.split(' ')[0]).sort()).toEqual([...Array(6).fill('generate'), 'run'].sort());
    // Both locks agree with the ledger: each copy records what its assets cost, though one paid.
    for (const dir of copies) expect(disagreements(lockVersusLedger(dir, await project.ledger()))).toEqual({});
    const charged = results.map((result) => parseJson(result).credits.charged as number);
    expect(charged[0]! + charged[1]!).toBe(netSpend(await project.ledger()));

    const forced = await spentDuring(async () => expect((await runCli(['build', '--force'], { env, cwd: copies[0] })).code).toBe(0));
    expect(forced).toBe(6 * 10 + 15);
  });
});

describe('estimates', () => {
  it('--dry-run says what it does not know: the known part, every unknown id, "+ unknown" for people; markdown for a PR', async () => {
    write(manifest([...icons(2).split('\n'), HERO, TORCH].join('\n'), 'budget: 500\n'));
    const json = await build(['--dry-run', '--json']);
    expect(json.code, json.stderr + json.stdout).toBe(8); // the budget would hold the unknown prices back
    expect(parseJson(json).estimate).toEqual({ credits: 180, unknown: ['icon-0', 'icon-1', 'hero'] });
    expect(parseJson(json).budget).toMatchObject({
      max: 500,
      over: false,
      unknown: ['icon-0', 'icon-1', 'hero'],
      from: 'budget',
      name: '`budget: 500` in assetgen.yaml',
      remedy: expect.stringContaining('`assetgen build icon-0 hero --max-credits none`'),
    });
    const human = await build(['--dry-run']);
    expect(human.stderr).toMatch(/Estimated cost: 180 credits \+ unknown for icon-0, icon-1, hero/);
    const markdown = await build(['--dry-run', '--format', 'markdown', '--max-credits', 'none']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^### assetgen build plan/);
    expect(markdown.stdout).toContain('**Estimated cost:** 180 credits + unknown for `icon-0`, `icon-1`, `hero`');
    expect(markdown.stdout).toContain('| `torch` | new | generate | 180 |');
    expect(await project.ledger()).toEqual([]);
  });
});
