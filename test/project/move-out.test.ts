// Moving an asset's `out` (defaults.out `assets/` → `sprites/`) against the real mock and its
// ledger, with a service that forgets idempotency keys at once (`idempotency.maxAgeMs: 1`), so a
// replay cannot hide a second charge: an image without post steps, a workflow, a video and an image
// with takes go to the new place with the bytes the lock records (0 requests, 0 charges), and back,
// free; one with post steps is re-processed from its kept original as before; the old files,
// assetgen's and unchanged, go. An old file edited by hand, or gone, with no kept original, is
// generated again (a paid call, the plan saying why) and the edited file stays where it is, which
// --prune leaves alone (assetgen no longer records it); a file at the new place that assetgen did
// not make is left alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import type { LockEntry } from '../../src/pipeline/records.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { ledgerOf } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const manifest = (out: string) => `defaults: { agent: sprite-artist, out: ${out} }
assets:
  - { id: sword, prompt: a rusty sword }
  - { id: hero, workflow: wf_sprite_sheet, set: { character: a dwarf miner } }
  - { id: torch, video: torch flickering on a wall }
  - { id: gem, prompt: a blue gem, variants: 2 }
  - { id: shield, prompt: a wooden shield, post: [pot] }
`;

const project = useMockProject({
  mock: { credits: 100_000 },
  // The service keeps no answer for a key: asking again with one is charged again.
  config: { credits: 100_000, videoPollAfterMs: 20, videoSteps: 2, faults: { rate: 0 }, idempotency: { maxAgeMs: 1 } },
  files: { 'assetgen.yaml': manifest('assets/') },
});
const file = (name: string) => path.join(project.cwd, name);
const read = (name: string) => fs.readFileSync(file(name));
const lock = () => readLock(file('assetgen.lock'));
const moveTo = (out: string) => writeFiles(project.cwd, { 'assetgen.yaml': manifest(out) });
type Item = { id: string; status: string; action: string; outcome: string; estimate: number; reasons: string[]; moves?: unknown[] };
const items = (result: CliResult): Record<string, Item> =>
  Object.fromEntries((parseJson(result).items as Item[]).map((item) => [item.id, item]));

/**
 * Runs `work`, with what the mock saw meanwhile: charges (and net spend) on its ledger, the paid
 * calls among them (by reason, polls left out), requests of any kind.
 */
async function watched(work: () => Promise<CliResult>) {
  const before = await project.mock.state();
  const { result, charges, spent } = await ledgerOf(project, work);
  const after = await project.mock.state();
  const paid = after.ledger
    .slice(before.ledger.length)
    .filter((entry) => entry.amount < 0 && !entry.reason.startsWith('poll'))
    .map((entry) => entry.reason.split(' ')[0]!)
    .sort();
  return { result, charges, spent, paid, requests: (after.requests as number) - (before.requests as number) };
}

/** What a move keeps of an entry: everything but the paths of its files. */
const withoutPaths = (entry: LockEntry) => ({ ...entry, files: entry.files.map(({ sha256, size }) => ({ sha256, size })) });

/** Moves every asset from `from` to `to` and checks it was free, each file's bytes moved, the lock the same but its paths. */
async function moveFreely(from: string, to: string): Promise<void> {
  const before = lock();
  const bytes = new Map(Object.values(before.assets).flatMap((entry) => entry.files.map((one) => [one.path, read(one.path)] as const)));
  moveTo(`${to}/`);
  const plan = await watched(() => project.run(['build', '--dry-run', '--json']));
  expect(plan.result.code, plan.result.stderr).toBe(0);
  const planned = items(plan.result);
  for (const id of ['sword', 'hero', 'torch']) {
    expect(planned[id], id).toMatchObject({ status: 'changed', action: 'move', estimate: 0 });
    const moved = before.assets[id]!.files.map((one) => one.path);
    expect(planned[id]!.reasons[0]).toBe(`out moved (from ${moved.join(', ')})`);
    expect(planned[id]!.moves).toEqual(moved.map((one) => ({ from: one, to: one.replace(`${from}/`, `${to}/`) })));
  }
  // Takes and post steps: made again from the picked take, or the kept original, as before.
  expect(planned.gem).toMatchObject({ action: 'reprocess', estimate: 0 });
  expect(planned.shield).toMatchObject({ action: 'reprocess', estimate: 0 });
  expect(parseJson(plan.result).estimate).toEqual({ credits: 0, unknown: [] });

  const built = await watched(() => project.run(['build', '--yes', '--json']));
  expect(built.result.code, built.result.stderr).toBe(0);
  expect([plan.requests, plan.charges, built.requests, built.charges, built.spent, built.paid.length]).toEqual([0, 0, 0, 0, 0, 0]);
  const document = parseJson(built.result);
  expect(document.totals).toMatchObject({ built: 5, failed: 0, credits: 0 });
  for (const item of Object.values(items(built.result))) expect(item.outcome, item.id).toBe('built');

  const after = lock();
  for (const id of ['sword', 'hero', 'torch', 'gem']) {
    expect(withoutPaths(after.assets[id]!), id).toEqual(withoutPaths(before.assets[id]!));
    for (const [index, one] of after.assets[id]!.files.entries()) {
      const old = before.assets[id]!.files[index]!.path;
      expect(one.path).toBe(old.replace(`${from}/`, `${to}/`));
      expect(read(one.path).equals(bytes.get(old)!), one.path).toBe(true);
      // The old file was assetgen's and unchanged: its bytes are at the new path, and it is gone.
      expect(fs.existsSync(file(old)), old).toBe(false);
    }
  }
  expect(fs.existsSync(file(`${from}/shield.png`))).toBe(false);
  expect(fs.readdirSync(file(from))).toEqual([]);
  // Nothing left to do.
  const again = await project.run(['build', '--dry-run', '--json']);
  expect(new Set(Object.values(items(again)).map((item) => item.action))).toEqual(new Set(['none']));
}

describe('moving an asset’s out', () => {
  it('moves an image, a workflow, a video and takes to the new out and back: 0 requests, 0 credits, the same bytes', async () => {
    const first = await watched(() => project.run(['build', '--yes', '--json']));
    expect(first.result.code, first.result.stderr).toBe(0);
    expect(first.spent).toBeGreaterThanOrEqual(10 + 180 + 2 * 10 + 10);
    expect(lock().assets.torch!.files[0]!.path).toMatch(/^assets\/torch\./);
    expect(lock().assets.hero!.files.length).toBeGreaterThan(1);

    await moveFreely('assets', 'sprites');
    const table = await project.run(['build', '--dry-run']);
    expect(table.stdout + table.stderr).toContain('up to date');
    await moveFreely('sprites', 'assets');
  });

  it('says the move in the dry run for people, 0 credits', async () => {
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    moveTo('sprites/');
    const plan = await project.run(['build', '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    const text = plan.stdout + plan.stderr;
    expect(text).toMatch(/sword\s+changed\s+move\s+image\s+0\s+sprites\/\s+out moved \(from assets\/sword\.png\)/);
    expect(text).toContain('3 to move (free)');
    expect(text).toContain('Estimated cost: 0 credits.');
  });

  it('an old file edited by hand, or gone, with no kept original: generated again and said why; the edited file stays, and --prune keeps it', async () => {
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    fs.appendFileSync(file('assets/sword.png'), 'touched up by hand');
    const edited = read('assets/sword.png');
    const heroFiles = lock().assets.hero!.files.map((one) => one.path);
    fs.rmSync(file(heroFiles[0]!));
    moveTo('sprites/');

    const plan = await watched(() => project.run(['build', '--dry-run', '--json']));
    const planned = items(plan.result);
    expect(planned.sword).toMatchObject({ status: 'changed', action: 'generate', estimate: 10 });
    expect(planned.sword!.reasons).toEqual([
      'out moved (from assets/sword.png)',
      'assets/sword.png edited since assetgen wrote it: left where it is',
      'the bytes assetgen.lock records are not at hand (no kept original): generated again, asked with the same key (a paid call)',
    ]);
    expect(planned.hero).toMatchObject({ status: 'changed', action: 'generate' });
    expect(planned.hero!.reasons).toContain(`${heroFiles[0]} missing`);
    // The others are at hand: moved, free.
    expect([planned.torch!.action, planned.gem!.action, planned.shield!.action]).toEqual(['move', 'reprocess', 'reprocess']);

    const built = await watched(() => project.run(['build', '--yes', '--json']));
    expect(built.result.code, built.result.stderr).toBe(0);
    // The service forgot the keys: the sword and the workflow run are paid again, nothing else.
    expect(built.paid).toEqual(['generate', 'run']);
    expect(items(built.result).torch!.outcome).toBe('built');
    expect(lock().assets.sword!.files.map((one) => one.path)).toEqual(['sprites/sword.png']);
    expect(fs.existsSync(file('sprites/sword.png'))).toBe(true);
    // The workflow's other old file was assetgen's and unchanged: gone once the run is saved at the new out.
    expect(lock().assets.hero!.files.map((one) => one.path)).toEqual(heroFiles.map((one) => one.replace('assets/', 'sprites/')));
    expect(fs.readdirSync(file('assets'))).toEqual(['sword.png']);
    // The hand edit is where it was, untouched; the lock no longer records it, so --prune leaves it.
    expect(read('assets/sword.png').equals(edited)).toBe(true);
    const pruned = await watched(() => project.run(['build', '--prune', '--yes', '--json']));
    expect(pruned.result.code, pruned.result.stderr).toBe(0);
    expect([pruned.charges, pruned.requests]).toEqual([0, 0]);
    expect(read('assets/sword.png').equals(edited)).toBe(true);

    // Moving back: the edited file is in the way, someone's work now: left alone, nothing paid.
    moveTo('assets/');
    const back = await watched(() => project.run(['build', '--yes', '--json']));
    expect(back.result.code, back.result.stderr).toBe(0);
    expect([back.charges, back.requests]).toEqual([0, 0]);
    expect(items(back.result).sword).toMatchObject({ outcome: 'kept' });
    expect(read('assets/sword.png').equals(edited)).toBe(true);
    expect(lock().assets.sword!.files.map((one) => one.path)).toEqual(['sprites/sword.png']);
    expect(items(back.result).torch).toMatchObject({ outcome: 'built' });
  });

  it('an output moved by hand to where its out now points: the lock follows, nothing written, nothing paid', async () => {
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    const bytes = read('assets/sword.png');
    fs.mkdirSync(file('sprites'));
    fs.renameSync(file('assets/sword.png'), file('sprites/sword.png'));
    moveTo('sprites/');
    const plan = await project.run(['build', '--dry-run', '--json']);
    expect(items(plan).sword).toMatchObject({ status: 'changed', action: 'move', estimate: 0 });
    const built = await watched(() => project.run(['build', '--yes', '--json']));
    expect(built.result.code, built.result.stderr).toBe(0);
    expect([built.charges, built.requests]).toEqual([0, 0]);
    expect(read('sprites/sword.png').equals(bytes)).toBe(true);
    expect(lock().assets.sword!.files.map((one) => one.path)).toEqual(['sprites/sword.png']);
  });

  it('a new out that is the old folder under another name (a link inside the project): recorded, and the files kept', async () => {
    const plain = (out: string) => manifest(out).split('\n').slice(0, 5).join('\n');
    writeFiles(project.cwd, { 'assetgen.yaml': plain('assets/') });
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    const before = lock();
    fs.symlinkSync('assets', file('sprites'));
    writeFiles(project.cwd, { 'assetgen.yaml': plain('sprites/') });
    const built = await watched(() => project.run(['build', '--yes', '--json']));
    expect(built.result.code, built.result.stderr).toBe(0);
    expect([built.charges, built.requests]).toEqual([0, 0]);
    for (const id of ['sword', 'hero', 'torch'])
      for (const [index, one] of lock().assets[id]!.files.entries()) {
        const old = before.assets[id]!.files[index]!;
        expect(one.path).toBe(old.path.replace('assets/', 'sprites/'));
        // One file under two names: the old name is never deleted as a former output.
        expect(fs.existsSync(file(old.path)), old.path).toBe(true);
      }
  });

  it('an asset with post steps whose kept original is gone (a fresh runner): its processed output moves as it is, free', async () => {
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    const before = lock().assets.shield!;
    const bytes = read(before.files[0]!.path);
    fs.rmSync(file('.assetgen/originals'), { recursive: true, force: true });
    moveTo('sprites/');
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.shield).toMatchObject({ status: 'changed', action: 'move', estimate: 0 });
    const built = await watched(() => project.run(['build', '--yes', '--json']));
    expect(built.result.code, built.result.stderr).toBe(0);
    expect([built.charges, built.requests]).toEqual([0, 0]);
    const after = lock().assets.shield!;
    expect(after.files.map((one) => one.path)).toEqual(['sprites/shield.png']);
    expect(read('sprites/shield.png').equals(bytes)).toBe(true);
    expect(fs.existsSync(file(before.files[0]!.path))).toBe(false);
    // What the steps made stays recorded: the next build finds it up to date.
    expect([after.post, after.original]).toEqual([before.post, before.original]);
    expect(items(await project.run(['build', '--dry-run', '--json'])).shield).toMatchObject({ status: 'up-to-date', action: 'none' });
  });

  it('an asset with post steps moved to the old folder under another name: re-processed, and the file it wrote kept', async () => {
    const shieldOnly = (out: string) =>
      `defaults: { agent: sprite-artist, out: ${out} }\nassets:\n  - { id: shield, prompt: a wooden shield, post: [pot] }\n`;
    writeFiles(project.cwd, { 'assetgen.yaml': shieldOnly('assets/') });
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    fs.symlinkSync('assets', file('sprites'));
    writeFiles(project.cwd, { 'assetgen.yaml': shieldOnly('sprites/') });
    const built = await watched(() => project.run(['build', '--yes', '--json']));
    expect(built.result.code, built.result.stderr).toBe(0);
    expect([built.charges, built.requests]).toEqual([0, 0]);
    expect(lock().assets.shield!.files.map((one) => one.path)).toEqual(['sprites/shield.png']);
    // The former output is the file just written, under its other name: never deleted as stale.
    expect(read('sprites/shield.png').subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('sidecars beside the outputs, out moved to the old folder under another name: the sidecar is rewritten, nothing in the way', async () => {
    const beside = (out: string) =>
      `defaults: { agent: sprite-artist, out: ${out} }\nprovenance: { sidecars: beside }\nassets:\n  - { id: sword, prompt: a rusty sword }\n`;
    writeFiles(project.cwd, { 'assetgen.yaml': beside('assets/') });
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    fs.symlinkSync('assets', file('Assets'));
    writeFiles(project.cwd, { 'assetgen.yaml': beside('Assets/') });
    const built = await watched(() => project.run(['build', '--yes', '--json']));
    expect(built.result.code, built.result.stderr).toBe(0);
    expect([built.charges, built.requests]).toEqual([0, 0]);
    expect(parseJson(built.result).sidecars.failed).toEqual([]);
    // One sidecar under two names, naming the output as the lock does now.
    expect(JSON.parse(read('Assets/sword.png.assetgen.json').toString()).file).toBe('Assets/sword.png');
    expect(fs.existsSync(file('assets/sword.png.assetgen.json'))).toBe(true);
  });

  it('an old output that became a link (to a copy outside): refused before anything is sent, naming it; the link and its target stay', async () => {
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-outside-'));
    try {
      const copy = path.join(outside, 'sword.png');
      fs.copyFileSync(file('assets/sword.png'), copy);
      fs.rmSync(file('assets/sword.png'));
      fs.symlinkSync(copy, file('assets/sword.png'));
      moveTo('sprites/');
      const built = await watched(() => project.run(['build', '--yes']));
      expect(built.result.code, built.result.stderr).toBe(2);
      expect(built.result.stderr).toContain('assets/sword.png is a symbolic link');
      expect([built.charges, built.requests]).toEqual([0, 0]);
      expect(fs.lstatSync(file('assets/sword.png')).isSymbolicLink()).toBe(true);
      expect(fs.existsSync(copy)).toBe(true);
      expect(fs.existsSync(file('sprites/sword.png'))).toBe(false);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a file assetgen did not make where the asset goes now is left alone (never replaced), nothing paid', async () => {
    expect((await project.run(['build', '--yes'])).code).toBe(0);
    writeFiles(project.cwd, { 'sprites/sword.png': 'drawn by hand' });
    moveTo('sprites/');
    const plan = await project.run(['build', '--dry-run', '--json']);
    const sword = items(plan)!.sword!;
    expect(sword).toMatchObject({ status: 'changed', action: 'keep', estimate: 0 });
    expect(sword.reasons[0]).toBe('out moved (from assets/sword.png)');
    expect(sword.reasons[1]).toMatch(/^sprites\/sword\.png exists and assetgen did not make it: /);
    const built = await watched(() => project.run(['build', '--yes', '--json']));
    expect(built.result.code, built.result.stderr).toBe(0);
    expect([built.charges, built.requests]).toEqual([0, 0]);
    expect(read('sprites/sword.png').toString()).toBe('drawn by hand');
    expect(fs.existsSync(file('assets/sword.png'))).toBe(true);
    expect(lock().assets.sword!.files.map((one) => one.path)).toEqual(['assets/sword.png']);
  });
});
