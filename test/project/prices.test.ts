// Budgets on a project's first build (issue 28, point 5), by the mock's ledger: declared `prices:`
// feed the estimate and the cap, the first call of a declared price goes alone and its answer
// replaces the declaration, a declaration below the real price stops its agent after one call (the
// cap passed by at most that call's difference), prices learned in another project on the same
// machine are used, and a refusal for unknown prices names the cap's source and both remedies.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRICES, WORKFLOWS } from '../../src/mock/index.js';
import { learnedPrices, learnedPricesPath, rememberPrices } from '../../src/config/learned-prices.js';
import { DeclaredPriceCheck } from '../../src/pipeline/budget.js';
import type { PlanItem } from '../../src/pipeline/records.js';
import { readLock } from '../../src/pipeline/lock.js';
import { jsonError, parseJson, runCli, shellWords } from '../support/cli.js';
import { netSpend } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { manifestOf, thrown } from './helpers.js';

const TILESET = PRICES.runPerNode * WORKFLOWS.find((workflow) => workflow.id === 'wf_tileset')!.nodes.length;
const images = (agent: string, count: number, prefix = agent): string[] =>
  Array.from({ length: count }, (_, i) => `  - { id: ${prefix}-${i}, prompt: "${prefix} thing ${i}", agent: ${agent} }`);
const WORKFLOW = '  - { id: tiles, workflow: wf_tileset, set: { theme: "lava cave" }, out: tiles/ }';
const VIDEO = '  - { id: torch, video: torch flickering, out: fx/ }';

const project = useMockProject({
  mock: { credits: 100_000 },
  config: { credits: 100_000, videoPollAfterMs: 20, videoSteps: 2, faults: { rate: 0 } },
});
const write = (text: string, dir = project.cwd): void => fs.writeFileSync(path.join(dir, 'assetgen.yaml'), text);
const build = (args: string[], cwd = project.cwd) => project.run(['build', ...args], { cwd });
type Item = { id: string; priceSource?: string; cap?: string; estimate: number | null; outcome?: string };
const byId = (document: Record<string, any>): Record<string, Item> =>
  Object.fromEntries((document.items as Item[]).map((item) => [item.id, item]));
/** Images the mock generated (each a charged call), and the lock's finished assets of `agent`. */
const generatedImages = async (): Promise<number> =>
  (await project.ledger()).filter((entry) => entry.amount < 0 && /^\S*generate /.test(entry.reason)).length;
const builtWith = (agent: string): number =>
  Object.values(readLock(path.join(project.cwd, 'assetgen.lock')).assets).filter((entry) => entry.agent === agent && entry.finishedAt)
    .length;

describe('declared prices', () => {
  it('a fresh project with `budget:` and `prices:` builds images, a workflow and a video within the budget at -j 16', async () => {
    write(
      [
        'budget: 400',
        'prices:',
        '  agents: { sprite-artist: 10, icon-forge: 10 }',
        `  workflows: { wf_tileset: ${TILESET} }`,
        'defaults: { out: assets/ }',
        'assets:',
        ...images('sprite-artist', 8),
        ...images('icon-forge', 4),
        WORKFLOW,
        VIDEO,
        '',
      ].join('\n'),
    );
    const plan = await build(['--dry-run', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = parseJson(plan);
    expect(planned.estimate).toEqual({ credits: 12 * 10 + TILESET + 180, unknown: [] });
    expect(byId(planned)['sprite-artist-0']!.priceSource).toBe('declared');
    expect(byId(planned).tiles!.priceSource).toBe('declared');
    expect(byId(planned).torch!.priceSource).toBe('published');
    expect(planned.prices).toContainEqual({
      kind: 'image',
      name: 'sprite-artist',
      credits: 10,
      source: 'declared',
      assets: 8,
      firstAsset: 'sprite-artist-0',
    });
    expect(planned.budget).toMatchObject({ max: 400, from: 'budget', name: '`budget: 400` in assetgen.yaml', over: false });
    const table = await build(['--dry-run']);
    expect(table.stderr).toContain('sprite-artist 10 (declared in assetgen.yaml)');
    const markdown = await build(['--dry-run', '--format', 'markdown']);
    expect(markdown.stdout).toMatch(/`sprite-artist` 10 \(declared in assetgen\.yaml\)/);

    const result = await build(['--yes', '-j', '16', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const spent = netSpend(await project.ledger());
    expect(spent).toBeGreaterThanOrEqual(12 * 10 + TILESET + 180);
    expect(spent).toBeLessThanOrEqual(400);
    expect(parseJson(result).totals).toMatchObject({ built: 14, capped: 0, credits: spent });
    // Built once, the lock's own charges are the prices now.
    write(fs.readFileSync(path.join(project.cwd, 'assetgen.yaml'), 'utf8').replace('thing 0"', 'thing 0 again"'));
    const again = parseJson(await build(['--dry-run', '--json']));
    expect(byId(again)['sprite-artist-0']).toMatchObject({ priceSource: 'observed', estimate: 10 });
  });

  it('a declaration below the real price stops that agent after one call; the cap is passed by one call’s difference at most', async () => {
    // 4 declared, 10 charged: the budget fits 3 sprite-artist images at 4 and one icon-forge at 10.
    const declared = 4;
    const budget = 3 * declared + 10;
    write(
      [
        `budget: ${budget}`,
        'prices:',
        `  agents: { sprite-artist: ${declared}, icon-forge: 10 }`,
        'assets:',
        ...images('sprite-artist', 3),
        ...images('icon-forge', 1),
        '',
      ].join('\n'),
    );
    const result = await build(['-j', '16', '--json']);
    expect(result.code, result.stderr).toBe(8);
    // One sprite-artist call, alone (sixteen workers, three assets): the other two never sent.
    expect(await generatedImages()).toBe(2);
    expect(builtWith('sprite-artist')).toBe(1);
    expect(builtWith('icon-forge')).toBe(1);
    const spent = netSpend(await project.ledger());
    expect(spent).toBe(PRICES.generation + 10);
    expect(spent - budget).toBeLessThanOrEqual(PRICES.generation - declared);
    const items = byId(parseJson(result));
    const held = Object.values(items).filter((item) => item.cap === 'declared-price-exceeded');
    expect(held).toHaveLength(2);
    expect(jsonError(result).hint).toMatch(/charged more than `prices:` declares/);
    // The charge observed replaces the declaration: the next build knows the price.
    const next = parseJson(await build(['--dry-run', '--json']));
    expect(next.prices).toContainEqual(expect.objectContaining({ name: 'sprite-artist', credits: 10, source: 'observed' }));
  });

  it('under the cap, the first answer below a declaration replaces it for the other assets of that agent', async () => {
    // 30 declared, 10 charged: by the declaration 2 of 4 fit in 60; by the first answer, all 4.
    write(['budget: 60', 'prices: { agents: { sprite-artist: 30 } }', 'assets:', ...images('sprite-artist', 4), ''].join('\n'));
    const result = await build(['-j', '16', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(await generatedImages()).toBe(4);
    expect(netSpend(await project.ledger())).toBe(40);
  });

  it('a cap that the real prices fill exactly: the assets held back by the first one’s declared reservation wait for it, none is refused', async () => {
    // 30 declared, 10 charged, budget 40: while the first holds 30, only one more fits; once it has
    // ended (it spent 10), the other two do. Every one is built, the ledger at the cap.
    write(['budget: 40', 'prices: { agents: { sprite-artist: 30 } }', 'assets:', ...images('sprite-artist', 4), ''].join('\n'));
    const before = (await project.ledger()).length;
    const result = await build(['-j', '16', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(Object.values(byId(parseJson(result))).map((item) => item.outcome)).toEqual(['built', 'built', 'built', 'built']);
    expect(netSpend((await project.ledger()).slice(before))).toBe(40);
  });
});

describe('learned prices', () => {
  it('prices observed in one project are used by a fresh project on the same machine with only `budget:`', async () => {
    write(['assets:', ...images('tile-smith', 1, 'seed'), WORKFLOW, ''].join('\n'));
    expect((await build(['--max-credits', 'none'])).code).toBe(0);
    const store = JSON.parse(fs.readFileSync(learnedPricesPath(project.env()), 'utf8'));
    expect(Object.values(store.services)).toEqual([
      expect.objectContaining({ agents: { 'tile-smith': 10 }, workflows: { wf_tileset: TILESET } }),
    ]);

    const other = path.join(project.home.home, 'other');
    fs.mkdirSync(other);
    write(['budget: 100', 'assets:', ...images('tile-smith', 3), WORKFLOW.replace('lava cave', 'ice cave'), ''].join('\n'), other);
    const plan = parseJson(await build(['--dry-run', '--json'], other));
    expect(plan.estimate).toEqual({ credits: 30 + TILESET, unknown: [] });
    expect(byId(plan)['tile-smith-0']!.priceSource).toBe('learned');
    expect((await build(['--dry-run'], other)).stderr).toContain('tile-smith 10 (learned on this machine)');
    const before = (await project.ledger()).length;
    const result = await build(['-j', '16'], other);
    expect(result.code, result.stderr).toBe(0);
    const spent = netSpend((await project.ledger()).slice(before));
    expect(spent).toBeGreaterThanOrEqual(30 + TILESET);
    expect(spent).toBeLessThanOrEqual(100);
  });

  it('rememberPrices adds prices seen elsewhere; the store stays bounded and ignores what is not a price', async () => {
    const env = project.env();
    expect(rememberPrices('cache.example', { agents: { 'sprite-artist': 12, 'bad id!': 3 }, workflows: { wf_x: -1 } }, env)).toBe(true);
    expect(rememberPrices('cache.example', { agents: { 'sprite-artist': 12 } }, env)).toBe(false);
    // 600 more prices, in six later builds of 100 (a write each, as a build makes): a0 oldest, a599 newest.
    for (let build = 0; build < 6; build++) {
      const agents = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`a${build * 100 + i}`, build * 100 + i]));
      expect(rememberPrices('cache.example', { agents }, env)).toBe(true);
    }
    const stored = JSON.parse(fs.readFileSync(learnedPricesPath(env), 'utf8')).services['cache.example'];
    expect(Object.keys(stored.agents)).toHaveLength(500);
    expect(stored.agents.a599).toBe(599); // the newest kept, the oldest dropped
    expect(stored.agents.a99).toBeUndefined();
    expect(stored.agents['bad id!']).toBeUndefined();
    expect(stored.workflows).toEqual({});
    expect(learnedPrices('cache.example', env).agents).toMatchObject({ a599: 599, a100: 100 });
    expect(learnedPrices('cache.example', env).agents['sprite-artist']).toBeUndefined(); // the oldest, dropped
  });

  it('a store that is not ours reads as empty; one that is a link is never written through', () => {
    const env = project.env();
    const file = learnedPricesPath(env);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"services": {"mock": {"agents": {"sprite-artist": "ten", "x": 1e12}}}}');
    expect(learnedPrices('mock', env)).toEqual({ agents: {}, workflows: {} });
    fs.rmSync(file);
    const elsewhere = path.join(project.home.home, 'elsewhere.json');
    fs.writeFileSync(elsewhere, 'not yours');
    fs.symlinkSync(elsewhere, file);
    expect(rememberPrices('mock', { agents: { 'sprite-artist': 10 } }, env)).toBe(false);
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe('not yours');
  });
});

describe('unknown prices under a cap', () => {
  const MANIFEST = ['budget: 400', 'assets:', ...images('tile-smith', 2, 'walk'), ...images('icon-forge', 1, 'item'), WORKFLOW, ''].join(
    '\n',
  );

  it('the refusal names where the cap came from and both remedies, with the exact command; never "raise the budget"', async () => {
    write(MANIFEST);
    const command = '`assetgen build walk-0 item-0 tiles --max-credits none`';
    const plan = await build(['--dry-run']);
    expect(plan.code).toBe(8);
    expect(plan.stderr).toContain('`budget: 400` in assetgen.yaml');
    expect(plan.stderr).toContain(
      'prices: { agents: { tile-smith: <credits>, icon-forge: <credits> }, workflows: { wf_tileset: <credits> } }',
    );
    expect(plan.stderr).toContain(command);
    expect(plan.stderr).not.toMatch(/raise/i);
    const markdown = await build(['--dry-run', '--format', 'markdown']);
    expect(markdown.stdout).toContain(`build one asset of each once without the cap: ${command}.`);
    expect(markdown.stdout).toContain(
      'prices: { agents: { tile-smith: <credits>, icon-forge: <credits> }, workflows: { wf_tileset: <credits> } }',
    );
    expect(markdown.stdout).toContain(
      '**Budget 400 credits (`budget: 400` in assetgen.yaml): 4 assets of unknown price would be held back (exit 8).**',
    );

    const capped = await build(['--json']);
    expect(capped.code).toBe(8);
    const error = jsonError(capped);
    expect(error.message).toMatch(/^Held at `budget: 400` in assetgen\.yaml: 4 assets not built/);
    expect(error.hint).toContain(command);
    expect(error.hint).toContain('`prices:');
    expect(error.hint).not.toMatch(/raise/i);
    expect((await build(['--max-credits', '400'])).stderr).toMatch(/Held at --max-credits 400: /);
    expect(await project.ledger()).toEqual([]);

    // The command as printed makes the three prices known; the budget then builds the rest.
    const remedy = await runCli(shellWords(command.slice(1, -1)).slice(1), { env: project.env(), cwd: project.cwd });
    expect(remedy.code, remedy.stderr).toBe(0);
    const rest = await build(['--json']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(parseJson(rest).totals).toMatchObject({ built: 1, unchanged: 3 });
  });
});

describe('prices: in the manifest', () => {
  it('reads credits per call by agent and workflow, in block or flow style', () => {
    const block = manifestOf('prices:\n  agents:\n    sprite-artist: 10\n  workflows:\n    wf_tileset: 20\nassets: []\n');
    expect(block.prices).toEqual({ agents: { 'sprite-artist': 10 }, workflows: { wf_tileset: 20 } });
    expect(manifestOf('prices: { agents: { __proto__: 3 } }\nassets: []\n').prices!.agents.__proto__).toBe(3);
  });

  it('names every mistake at its file:line:col (exit 2 from the CLI)', async () => {
    const text = [
      'prices:',
      '  agents: { sprite-artist: ten, icon-forge: -1, tile-smith: 2.5 }',
      '  workflows: [wf_tileset]',
      '  videos: { torch: 180 }',
      'assets: []',
      '',
    ].join('\n');
    expect(thrown(() => manifestOf(text)).message.split('\n')).toEqual([
      'assetgen.yaml:2:28: prices.agents.sprite-artist: must be a whole number of credits ≥ 0 (what one call costs), not "ten"',
      'assetgen.yaml:2:45: prices.agents.icon-forge: must be a whole number of credits ≥ 0 (what one call costs), not -1',
      'assetgen.yaml:2:61: prices.agents.tile-smith: must be a whole number of credits ≥ 0 (what one call costs), not 2.5',
      'assetgen.yaml:3:14: prices.workflows: must be a mapping of workflow id to credits per call',
      'assetgen.yaml:4:3: prices.videos: unknown field (expected one of: agents, workflows)',
    ]);
    expect(thrown(() => manifestOf('prices: 10\nassets: []\n')).message).toBe(
      'assetgen.yaml:1:9: prices: must be a mapping: `agents` and `workflows`, each a mapping of id to credits per call',
    );
    write(text);
    const result = await build(['--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('assetgen.yaml:2:28: prices.agents.sprite-artist');
  });
});

describe('DeclaredPriceCheck', () => {
  const item = (id: string, agent: string, estimate: number | null, extra: Partial<PlanItem> = {}): PlanItem =>
    ({ id, kind: 'image', agent, action: 'generate', estimate, priceSource: 'declared', ...extra }) as PlanItem;

  it('lets the first asset of a declared price go alone; its answer settles the rest', () => {
    const a = item('a', 'x', 5);
    const b = item('b', 'x', 5);
    const t = item('t', 'x', 15, { takes: [1, 2, 3], takePrice: 5 });
    const observed = item('o', 'y', 7, { priceSource: 'observed' });
    const check = new DeclaredPriceCheck([a, b, t, observed], 100);
    expect(check.admit(a)).toMatchObject({ go: true, estimate: 5 });
    expect(check.admit(b)).toBe('wait');
    expect(check.admit(observed)).toMatchObject({ go: true, estimate: 7 });
    expect(check.answered(a, 3)).toBeUndefined();
    expect(check.admit(b)).toEqual({ go: true, estimate: 3, takePrice: undefined });
    expect(check.admit(t)).toEqual({ go: true, estimate: 9, takePrice: 3 });
  });

  it('an answer above the declaration stops its agent; a first asset that ended unanswered lets the next one go', () => {
    const a = item('a', 'x', 5);
    const b = item('b', 'x', 5);
    const c = item('c', 'x', 5);
    const check = new DeclaredPriceCheck([a, b, c], 100);
    expect(check.admit(a)).toMatchObject({ go: true });
    check.ended(a); // failed before its answer
    expect(check.admit(b)).toMatchObject({ go: true });
    expect(check.answered(b, 8)).toEqual({ kind: 'declared-price-exceeded', name: 'x', declared: 5, charged: 8, max: 100 });
    expect(check.refusal(b)).toMatchObject({ kind: 'declared-price-exceeded' });
    expect(check.admit(c)).toMatchObject({ go: false, refusal: { kind: 'declared-price-exceeded' } });
  });
});
