// Takes of an image asset (issue 27), by the real CLI against the bundled mock and its ledger:
// `variants: N` makes N paid calls (the dry run said so first), a rebuild none, raising N only the
// new takes; `pick` is free and makes the output from the take; `--more K` makes exactly K, keeping
// the rest; a sheet packs the picked take; the cap holds at -j 16; bad input is exit 2.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { idempotencyKeyFor } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { netSpend, spendByKey } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const lock = () => readLock(path.join(project.cwd, 'assetgen.lock'));
const bytes = (file: string) => fs.readFileSync(path.join(project.cwd, file));
const RESIZE = 'post: [{ resize: { width: 8, height: 8 } }]';
/** `count` icons with `variants`, and `seed`, built first so icon-forge's price (10) is known. */
const manifest = (count: number, variants: string, extra = '') =>
  [
    `defaults: { agent: icon-forge, out: assets/, ${RESIZE} }`,
    'assets:',
    '  - { id: seed, prompt: a seed }',
    ...Array.from({ length: count }, (_, i) => `  - { id: icon-${i}, prompt: icon number ${i}${variants} }`),
    extra,
  ].join('\n');

/** Runs `work`; the ledger entries it added. */
async function ledgerDuring(work: () => Promise<unknown>) {
  const before = (await project.ledger()).length;
  await work();
  return (await project.ledger()).slice(before);
}
const run = (args: string[]) => project.run(args);
const ok = async (args: string[]): Promise<CliResult> => {
  const result = await run(args);
  expect(result.code, result.stderr).toBe(0);
  return result;
};

describe('variants: N takes, a paid call each', () => {
  it('4 assets of 3 takes: the dry run says 12 × 10 first, the build makes 12 paid calls (one per key), a rebuild none, variants: 5 eight more', async () => {
    write(manifest(4, ''));
    await ok(['build', 'seed']);
    write(manifest(4, ', variants: 3'));
    const plan = parseJson(await ok(['build', '--dry-run', '--json']));
    expect(plan.estimate).toEqual({ credits: 120, unknown: [], calls: 12 });
    const icon = (plan.items as { id: string; takes?: number[]; takePrice?: number; estimate: number }[]).find((i) => i.id === 'icon-0')!;
    expect(icon).toMatchObject({ takes: [1, 2, 3], takePrice: 10, estimate: 30 });
    const table = await ok(['build', '--dry-run']);
    expect(table.stdout).toMatch(/^icon-0\s.*3 × 10 = 30/m);
    expect(table.stderr).toMatch(/Estimated cost: 120 credits for 12 paid calls/);

    let built!: CliResult;
    const paid = await ledgerDuring(async () => (built = await ok(['build', '-j', '4', '--json'])));
    expect(paid).toHaveLength(12);
    expect(netSpend(paid)).toBe(120);
    // Each take its own key, as idempotencyKeyFor(id, spec, generation, k) derives it.
    const byKey = spendByKey(paid);
    for (let i = 0; i < 4; i++) {
      const entry = lock().assets[`icon-${i}`]!;
      expect(entry.candidates!.map((take) => [take.k, take.credits])).toEqual([
        [1, 10],
        [2, 10],
        [3, 10],
      ]);
      expect(entry.credits).toBe(30);
      for (const k of [1, 2, 3]) expect(byKey.get(idempotencyKeyFor(`icon-${i}`, entry.spec!, entry.generation!, k))).toBe(10);
      for (const take of entry.candidates!) expect(take.file).toBe(`.assetgen/candidates/icon-${i}/${take.k}.png`);
    }
    // Until someone picks, take 1 is used, and the build says so (people and --json).
    const item = (parseJson(built).items as { id: string; unpicked?: string; picked?: number }[]).find((i) => i.id === 'icon-2')!;
    expect(item).toMatchObject({ picked: 1, unpicked: 'take 1 used until you pick (assetgen pick icon-2 <k>)' });

    expect(await ledgerDuring(() => ok(['build', '-j', '4']))).toHaveLength(0);

    const before = lock().assets['icon-0']!.candidates!.map((take) => bytes(take.file));
    write(manifest(4, ', variants: 5'));
    const more = await ledgerDuring(() => ok(['build', '-j', '4']));
    expect(more).toHaveLength(8);
    expect(netSpend(more)).toBe(80);
    const after = lock().assets['icon-0']!.candidates!;
    expect(after.map((take) => take.k)).toEqual([1, 2, 3, 4, 5]);
    after.slice(0, 3).forEach((take, i) => expect(bytes(take.file).equals(before[i]!)).toBe(true));
    // Fewer takes asked for: nothing paid, every take kept.
    write(manifest(4, ', variants: 2'));
    expect(await ledgerDuring(() => ok(['build']))).toHaveLength(0);
    expect(lock().assets['icon-0']!.candidates).toHaveLength(5);
  });

  it('pick: no service call, the output is take k through its post steps, the lock records it; a sheet then packs the picked take', async () => {
    const sheet = '  - { id: atlas, sheet: { from: [icon-*] }, out: assets/atlas.png }';
    write(manifest(2, ', variants: 3', sheet));
    await ok(['build', 'seed']);
    await ok(['build']);
    let picked!: CliResult;
    expect(await ledgerDuring(async () => (picked = await ok(['pick', 'icon-1', '3', '--json'])))).toHaveLength(0);
    const entry = lock().assets['icon-1']!;
    expect(entry.picked).toBe(3);
    const take = entry.candidates!.find((one) => one.k === 3)!;
    const { applyPostSteps } = await import('../../src/imaging/post.js');
    const { parsePostSteps } = await import('../../src/imaging/post-steps.js');
    const expected = await applyPostSteps(bytes(take.file), parsePostSteps([{ resize: { width: 8, height: 8 } }]), take.file);
    expect(bytes('assets/icon-1.png').equals(Buffer.from(expected.bytes))).toBe(true);
    expect(entry.original).toMatchObject({ path: take.file, sha256: take.sha256 });
    expect(parseJson(picked)).toMatchObject({ id: 'icon-1', from: 1, picked: 3, credits: 0, staleSheets: ['atlas'] });
    expect(picked.stderr).toMatch(/take 1 → take 3 \(no service call/);
    // The next build packs the sheet from the picked take's output, paying nothing.
    expect(await ledgerDuring(() => ok(['build']))).toHaveLength(0);
    const output = lock().assets['icon-1']!.files[0]!;
    expect(lock().assets.atlas!.inputs).toContainEqual(output);
    expect(lock().assets['icon-1']!.picked).toBe(3);
    // A later build keeps the pick.
    expect(await ledgerDuring(() => ok(['build']))).toHaveLength(0);
    expect(bytes('assets/icon-1.png').equals(Buffer.from(expected.bytes))).toBe(true);
  });

  it('pick refuses a wrong id or take with exit 2, naming the takes there are', async () => {
    write(manifest(1, ', variants: 2'));
    await ok(['build']);
    const wrongTake = await run(['pick', 'icon-0', '7']);
    expect(wrongTake.code).toBe(2);
    expect(wrongTake.stderr).toMatch(/"icon-0" has no take 7: its takes are 1 and 2/);
    const wrongId = await run(['pick', 'nope', '1']);
    expect(wrongId.code).toBe(2);
    expect(wrongId.stderr).toMatch(/No asset "nope"/);
    const noTakes = await run(['pick', 'seed', '1']);
    expect(noTakes.code).toBe(2);
    expect(noTakes.stderr).toMatch(/"seed" has no takes to pick from/);
  });

  it('--more 2: exactly 2 paid calls, earlier takes byte-identical, the pick kept; --prune-takes deletes the rest for free', async () => {
    write(manifest(1, ', variants: 2'));
    await ok(['build']);
    await ok(['pick', 'icon-0', '2']);
    const earlier = lock().assets['icon-0']!.candidates!.map((take) => [take.file, bytes(take.file)] as const);
    const plan = parseJson(await ok(['build', 'icon-0', '--more', '2', '--dry-run', '--json']));
    expect(plan.items[0]).toMatchObject({ takes: [3, 4], estimate: 20 });
    const paid = await ledgerDuring(() => ok(['build', 'icon-0', '--more', '2']));
    expect(paid).toHaveLength(2);
    const entry = lock().assets['icon-0']!;
    expect(entry.candidates!.map((take) => take.k)).toEqual([1, 2, 3, 4]);
    expect(entry.picked).toBe(2);
    for (const [file, was] of earlier) expect(bytes(file).equals(was)).toBe(true);
    expect(spendByKey(paid).get(idempotencyKeyFor('icon-0', entry.spec!, entry.generation!, 3))).toBe(10);
    // --more without an asset named would pay for every asset: refused.
    expect((await run(['build', '--more', '2'])).code).toBe(2);
    expect((await run(['build', 'icon-0', '--more', '0'])).code).toBe(2);

    expect(await ledgerDuring(() => ok(['build', '--prune-takes']))).toHaveLength(0);
    expect(lock().assets['icon-0']!.candidates!.map((take) => take.k)).toEqual([2]);
    expect(fs.readdirSync(path.join(project.cwd, '.assetgen/candidates/icon-0'))).toEqual(['2.png']);
    // The pruned takes were made and paid for: recorded, still counted in the asset's cost, never made again.
    const pruned = lock().assets['icon-0']!;
    expect(pruned.prunedTakes).toEqual([
      { k: 1, credits: 10 },
      { k: 3, credits: 10 },
      { k: 4, credits: 10 },
    ]);
    expect(pruned.credits).toBe(40);
    expect(await ledgerDuring(() => ok(['build']))).toHaveLength(0);
    // Raising variants past every take made (4) pays for the new ones only, the pick kept.
    write(manifest(1, ', variants: 6'));
    const raised = await ledgerDuring(() => ok(['build']));
    expect(raised).toHaveLength(2);
    const after = lock().assets['icon-0']!;
    expect(after.candidates!.map((take) => take.k)).toEqual([2, 5, 6]);
    expect(after.picked).toBe(2);
    expect(after.credits).toBe(60);
  });

  it('variants on a built asset: its finish becomes take 1 with no call, and only takes 2 and 3 are paid for', async () => {
    write(manifest(1, ''));
    await ok(['build']);
    const original = lock().assets['icon-0']!.original!;
    const kept = bytes(original.path);
    write(manifest(1, ', variants: 3'));
    const plan = parseJson(await ok(['build', 'icon-0', '--dry-run', '--json']));
    expect(plan.items[0]).toMatchObject({ takes: [2, 3], estimate: 20 });
    expect(plan.items[0].reasons.join('; ')).toMatch(/1 of 3 takes made: takes 2 and 3 to make.*take 1 is the asset as built/);
    expect(await ledgerDuring(() => ok(['build']))).toHaveLength(2);
    const entry = lock().assets['icon-0']!;
    expect(bytes(entry.candidates![0]!.file).equals(kept)).toBe(true);
    expect(entry.candidates!.map((take) => take.k)).toEqual([1, 2, 3]);
    // The kept original lives on as take 1: no second copy under .assetgen/originals/.
    expect(fs.existsSync(path.join(project.cwd, original.path))).toBe(false);
    expect(entry.original!.path).toBe('.assetgen/candidates/icon-0/1.png');
    // A changed post step re-processes the picked take for free.
    write(manifest(1, ', variants: 3').replace('width: 8, height: 8', 'width: 4, height: 4'));
    expect(await ledgerDuring(() => ok(['build']))).toHaveLength(0);
    expect(lock().assets['icon-0']!.files[0]!.path).toBe('assets/icon-0.png');
  });

  it('a spec change is a new generation: takes 1..N afresh, the last ones removed (said in the plan)', async () => {
    write(manifest(1, ', variants: 2'));
    await ok(['build']);
    await ok(['pick', 'icon-0', '2']);
    write(manifest(1, ', variants: 2').replace('icon number 0', 'icon numero 0'));
    const plan = parseJson(await ok(['build', '--dry-run', '--json']));
    expect(plan.items.find((i: { id: string }) => i.id === 'icon-0')).toMatchObject({ takes: [1, 2], estimate: 20 });
    expect(plan.items.find((i: { id: string }) => i.id === 'icon-0').reasons.join('; ')).toMatch(/last generation's 2 takes/);
    expect(await ledgerDuring(() => ok(['build']))).toHaveLength(2);
    const entry = lock().assets['icon-0']!;
    expect(entry.generation).toBe(2);
    expect(entry.picked).toBeUndefined();
    expect(entry.candidates!.map((take) => take.k)).toEqual([1, 2]);
  });

  it('--max-credits with takes at -j 16: the ledger never passes the cap', async () => {
    write(manifest(6, ''));
    await ok(['build', 'seed']);
    write(manifest(6, ', variants: 3'));
    let result!: CliResult;
    const paid = await ledgerDuring(async () => (result = await run(['build', '-j', '16', '--max-credits', '50', '--json'])));
    expect(result.code, result.stderr).toBe(8);
    expect(netSpend(paid)).toBeLessThanOrEqual(50);
    expect(netSpend(paid)).toBe(30);
    // What was held back is built by the next build, each take paid once.
    const rest = await ledgerDuring(() => ok(['build', '-j', '16', '--max-credits', 'none']));
    expect(netSpend(rest)).toBe(150);
  });
});

describe('variants in the manifest', () => {
  it.each([
    ['0', /variants: must be a whole number of takes from 1 to 16/],
    ['17', /variants: must be a whole number of takes from 1 to 16/],
    ['three', /variants: must be a whole number of takes from 1 to 16/],
  ])('variants: %s is exit 2 with its position', async (value, message) => {
    write(`defaults: { agent: icon-forge }\nassets:\n  - id: a\n    prompt: p\n    variants: ${value}\n`);
    const result = await run(['build', '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/assetgen\.yaml:5:15/);
    expect(result.stderr).toMatch(message);
  });

  it('is refused on a video, a workflow and a sheet with a reason; defaults.variants reaches image assets only', async () => {
    write(
      [
        'defaults: { agent: icon-forge, variants: 2 }',
        'assets:',
        '  - { id: a, prompt: p }',
        '  - { id: v, video: torch, variants: 2 }',
        '  - { id: w, workflow: wf_tileset, out: w/, variants: 2 }',
      ].join('\n'),
    );
    const result = await run(['build', '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/:4:.*variants: does not apply to a video asset: a video take is a 180-credit job of its own/);
    expect(result.stderr).toMatch(/:5:.*variants: does not apply to a workflow asset/);
    write('defaults: { agent: icon-forge, variants: 2 }\nassets:\n  - { id: a, prompt: p }\n  - { id: v, video: torch }\n');
    const plan = parseJson(await ok(['build', '--dry-run', '--json']));
    expect(plan.items.map((i: { id: string; takes?: number[] }) => [i.id, i.takes])).toEqual([
      ['a', [1, 2]],
      ['v', undefined],
    ]);
  });
});
