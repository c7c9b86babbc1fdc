// Templates end to end against the mock: a matrix's assets are ordinary assets to the plan, the
// lock, the gallery, --json and the ledger — each charged once, a rebuild free, a changed style one
// new charge per asset that uses it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { disagreements, lockVersusLedger, netSpend, spendByKey } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, faults: { rate: 0 } } });
const build = (...args: string[]) => project.run(['build', ...args]);
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const manifest = (style: string) =>
  [
    'vars: { place: a flooded dungeon }',
    'defaults:',
    '  agent: icon-forge',
    '  out: assets/',
    `  style: ${style}`,
    'assets:',
    '  - id: potion-${color}-${size}',
    '    prompt: a ${size} ${color} potion from ${place}',
    '    out: assets/potions/',
    '    matrix:',
    '      color: [red, blue, green]',
    '      size: [small, large]',
    '  - id: key',
    '    prompt: an iron key',
    '    style: ""',
    '',
  ].join('\n');
const POTIONS = ['red', 'blue', 'green'].flatMap((color) => ['small', 'large'].map((size) => `potion-${color}-${size}`));
const ids = (result: CliResult) => (parseJson(result).items as { id: string }[]).map((item) => item.id);
const byId = <T extends { id: string }>(items: T[], pick: (item: T) => unknown) =>
  Object.fromEntries(items.map((item) => [item.id, pick(item)]));
/** Runs `work`; returns the ledger entries it added. */
async function ledgerDuring(work: () => Promise<unknown>) {
  const before = (await project.ledger()).length;
  await work();
  return (await project.ledger()).slice(before);
}

describe('a matrix against the ledger', () => {
  it('3×2 → six assets, each charged once; a second build charges nothing; a new style rebuilds each asset that uses it, once', async () => {
    write(manifest('32x32 pixel art'));
    const plan = await build('--dry-run', '--json');
    expect(plan.code, plan.stderr).toBe(0);
    expect(ids(plan)).toEqual([...POTIONS, 'key']);
    expect(ids(await build('--dry-run', '--json', 'potion-red-*'))).toEqual(['potion-red-small', 'potion-red-large']);
    expect(new Set((parseJson(plan).items as { status: string }[]).map((item) => item.status))).toEqual(new Set(['new']));

    let first!: CliResult;
    const paid = await ledgerDuring(async () => (first = await build('-j', '4', '--json')));
    expect(first.code, first.stderr).toBe(0);
    expect(ids(first).sort()).toEqual([...POTIONS, 'key'].sort());
    // One charge per asset, each under its own idempotency key, as the lock records it.
    const byKey = spendByKey(paid);
    expect([...byKey.values()]).toEqual(Array(7).fill(10));
    expect(netSpend(paid)).toBe(70);
    expect(disagreements(lockVersusLedger(project.cwd, await project.ledger()))).toEqual({});
    const lock = readLock(path.join(project.cwd, 'assetgen.lock'));
    expect(Object.keys(lock.assets).sort()).toEqual([...POTIONS, 'key'].sort());
    expect(lock.assets['potion-blue-large']!.files.map((file) => path.posix.dirname(file.path))).toEqual(['assets/potions']);

    let second!: CliResult;
    expect(await ledgerDuring(async () => (second = await build('--json')))).toEqual([]);
    expect(second.code, second.stderr).toBe(0);
    expect(parseJson(second).totals).toMatchObject({ built: 0, unchanged: 7, credits: 0 });

    // The style is part of each prompt, so of each spec: the six potions change, the key does not.
    write(manifest('watercolour'));
    const changed = await build('--dry-run', '--json');
    expect(byId(parseJson(changed).items as { id: string; status: string }[], (item) => item.status)).toEqual({
      ...Object.fromEntries(POTIONS.map((id) => [id, 'changed'])),
      key: 'up-to-date',
    });
    let restyled!: CliResult;
    const repaid = await ledgerDuring(async () => (restyled = await build('-j', '4', '--json')));
    expect(restyled.code, restyled.stderr).toBe(0);
    expect([...spendByKey(repaid).values()]).toEqual(Array(6).fill(10));
    expect(parseJson(restyled).totals).toMatchObject({ built: 6, unchanged: 1, credits: 60 });
    expect(await ledgerDuring(() => build())).toEqual([]);
  });
});

describe('what the other commands show', () => {
  it('the gallery and report --json list the expanded assets with their full prompts', async () => {
    write(manifest('32x32 pixel art'));
    expect((await build('--report', 'gallery.html')).code).toBe(0);
    const report = await project.run(['report', '--json', '-o', 'again.html']);
    expect(report.code, report.stderr).toBe(0);
    const items = parseJson(report).items as { id: string; prompt?: string; status: string }[];
    expect(byId(items, (item) => item.prompt)).toMatchObject({
      'potion-green-small': 'a small green potion from a flooded dungeon, 32x32 pixel art',
      key: 'an iron key',
    });
    const { readFileSync } = await import('node:fs');
    const html = readFileSync(path.join(project.cwd, 'gallery.html'), 'utf8');
    for (const id of POTIONS) expect(html).toContain(id);
    expect(html).toContain('a large red potion from a flooded dungeon, 32x32 pixel art');
  });

  it('an unknown variable is exit 2 with its file:line:col, nothing sent', async () => {
    write(manifest('32x32 pixel art').replace('${size} ${color} potion', '${size} ${colour} potion'));
    const human = await build('--yes');
    expect(human.code).toBe(2);
    expect(human.stderr).toContain('assetgen.yaml:8:23: assets[0].prompt: unknown variable ${colour} (known: color, place, size)');
    const json = await build('--dry-run', '--json');
    expect(json.code).toBe(2);
    expect(jsonError(json)).toMatchObject({ code: 'usage', message: expect.stringContaining('assetgen.yaml:8:23:') });
    expect(await project.ledger()).toEqual([]);
  });
});
