// A provenance sidecar goes with the output it describes: when a file stops being an output of its
// asset — a new cut makes fewer frames, `format: webp` names the output anew, `out` moves, the asset
// is pruned — the build that stops producing it removes assetgen's sidecar of it (in the default
// folder, and beside the outputs), names it in `sidecars.removed` and says so; a file of that name
// assetgen did not write (the user's notes, a sidecar of another file, a link) is never removed, and
// a frame edited by hand keeps the sidecar it had. All of it free: the ledger does not move.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const build = (args: string[] = []) => project.run(['build', '--yes', '--json', ...args]);
const file = (name: string) => path.join(project.cwd, name);
const exists = (name: string) => fs.existsSync(file(name));

/** The two places: the default folder (`provenance: sidecar`) and beside each output. */
const PLACES = [
  { name: 'the default folder', setting: 'sidecar', at: (output: string) => `.assetgen/provenance/${output}.assetgen.json` },
  { name: 'beside the outputs', setting: '{ sidecars: beside }', at: (output: string) => `${output}.assetgen.json` },
] as const;

const manifest = (setting: string, hero: string, coin = 'post: [trim]') => `provenance: ${setting}
defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: hero, prompt: a knight walking, post: [${hero}] }
  - { id: coin, prompt: a gold coin, ${coin} }
`;
const frames = (count: number, extension = 'png') => Array.from({ length: count }, (_, index) => `assets/hero-${index + 1}.${extension}`);

describe.each(PLACES)('sidecars of former outputs ($name)', ({ setting, at }) => {
  const write = (hero: string, coin?: string) => writeFiles(project.cwd, { 'assetgen.yaml': manifest(setting, hero, coin) });

  it('a re-cut to fewer frames, then png to webp: the sidecars of the files no longer made go, named in removed, for free', async () => {
    write('{ slice: { columns: 4 } }');
    expect((await build()).code).toBe(0);
    for (const frame of frames(4)) expect(exists(at(frame)), frame).toBe(true);
    const ledger = await project.ledger();

    write('{ slice: { columns: 2 } }');
    const recut = await build();
    expect(recut.code, recut.stderr).toBe(0);
    expect(parseJson(recut).sidecars).toMatchObject({
      written: frames(2).map(at),
      removed: frames(4).slice(2).map(at),
      moved: 0,
      failed: [],
    });
    for (const frame of frames(4).slice(2)) expect([exists(frame), exists(at(frame))], frame).toEqual([false, false]);
    for (const frame of frames(2)) expect(exists(at(frame)), frame).toBe(true);

    write('{ slice: { columns: 2 } }, { format: webp }');
    const webp = await project.run(['build', '--yes']);
    expect(webp.code, webp.stderr).toBe(0);
    expect(webp.stderr).toMatch(/Provenance: 2 sidecars written .*, 1 already current \(2 removed: their files are no longer outputs\)\./);
    for (const frame of frames(2)) expect([exists(frame), exists(at(frame))], frame).toEqual([false, false]);
    for (const frame of frames(2, 'webp')) expect([exists(frame), exists(at(frame))], frame).toEqual([true, true]);
    expect(await project.ledger()).toEqual(ledger);
  });

  it("a moved out: the old place's sidecar goes at that build; a pruned asset's sidecars go and are named", async () => {
    write('{ slice: { columns: 2 } }');
    expect((await build()).code).toBe(0);
    const ledger = await project.ledger();

    write('{ slice: { columns: 2 } }', 'post: [trim], out: items/');
    const moved = await build();
    expect(moved.code, moved.stderr).toBe(0);
    expect(parseJson(moved).sidecars).toMatchObject({ written: [at('items/coin.png')], removed: [at('assets/coin.png')], moved: 0 });
    expect([exists('assets/coin.png'), exists(at('assets/coin.png'))]).toEqual([false, false]);
    expect(JSON.parse(fs.readFileSync(file(at('items/coin.png')), 'utf8'))).toMatchObject({ asset: 'coin', file: 'items/coin.png' });

    writeFiles(project.cwd, {
      'assetgen.yaml': `provenance: ${setting}\ndefaults: { agent: sprite-artist, out: assets/ }\nassets:\n  - { id: coin, prompt: a gold coin, post: [trim], out: items/ }\n`,
    });
    const pruned = await build(['--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(parseJson(pruned).sidecars).toMatchObject({ removed: frames(2).map(at), moved: 0, failed: [] });
    for (const frame of frames(2)) expect([exists(frame), exists(at(frame))], frame).toEqual([false, false]);
    expect(exists(at('items/coin.png'))).toBe(true);
    expect(await project.ledger()).toEqual(ledger);
  });

  it("never removes a file at a sidecar's path that assetgen did not write for that output, nor a link; an edited frame keeps its sidecar", async () => {
    write('{ slice: { columns: 4 } }');
    expect((await build()).code).toBe(0);
    const ledger = await project.ledger();
    // The user's notes, a sidecar of another file, and a link, where frames 2 to 4's sidecars were.
    const notes = '{"my": "notes"}';
    const another = `${JSON.stringify({ generator: 'assetgen', asset: 'hero', file: 'assets/other.png' })}\n`;
    const outside = path.join(project.home.home, 'outside.json');
    const theirs = fs.readFileSync(file(at('assets/hero-4.png')), 'utf8');
    fs.writeFileSync(outside, theirs);
    fs.writeFileSync(file(at('assets/hero-2.png')), notes);
    fs.writeFileSync(file(at('assets/hero-3.png')), another);
    fs.rmSync(file(at('assets/hero-4.png')));
    fs.symlinkSync(outside, file(at('assets/hero-4.png')));

    write('{ slice: { columns: 1 } }');
    const recut = await build();
    expect(recut.code, recut.stderr).toBe(0);
    expect(parseJson(recut).sidecars).toMatchObject({ written: [at('assets/hero-1.png')], removed: [], failed: [] });
    expect(fs.readFileSync(file(at('assets/hero-2.png')), 'utf8')).toBe(notes);
    expect(fs.readFileSync(file(at('assets/hero-3.png')), 'utf8')).toBe(another);
    expect(fs.lstatSync(file(at('assets/hero-4.png'))).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(outside, 'utf8')).toBe(theirs);
    for (const frame of frames(4).slice(1)) fs.rmSync(file(at(frame)));

    // An edited frame of a pruned asset: prune keeps the file, and the file keeps its sidecar.
    write('{ slice: { columns: 2 } }');
    expect((await build()).code).toBe(0);
    fs.writeFileSync(file('assets/hero-2.png'), fs.readFileSync(file('assets/coin.png')));
    writeFiles(project.cwd, {
      'assetgen.yaml': `provenance: ${setting}\ndefaults: { agent: sprite-artist, out: assets/ }\nassets:\n  - { id: coin, prompt: a gold coin, post: [trim] }\n`,
    });
    const pruned = await build(['--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(parseJson(pruned).sidecars.removed).toEqual([at('assets/hero-1.png')]);
    expect([exists('assets/hero-2.png'), exists(at('assets/hero-2.png'))]).toEqual([true, true]);
    expect(await project.ledger()).toEqual(ledger);
  });
});

describe('a re-cut and a change of place at the same build', () => {
  it("the kept frames' sidecars move, the dropped frames' go from where they were: removed names both, moved counts the first", async () => {
    const [folder, beside] = PLACES;
    writeFiles(project.cwd, { 'assetgen.yaml': manifest(beside.setting, '{ slice: { columns: 4 } }') });
    expect((await build()).code).toBe(0);
    const ledger = await project.ledger();
    writeFiles(project.cwd, { 'assetgen.yaml': manifest(folder.setting, '{ slice: { columns: 2 } }') });
    const result = await project.run(['build', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Provenance: 3 sidecars written in .assetgen/provenance/, 0 already current (3 moved from beside the outputs; 2 removed: their files are no longer outputs).',
    );
    const json = parseJson(await build());
    expect(json.sidecars).toMatchObject({ written: [], removed: [], current: 3 });
    expect(json.sidecars.moved).toBeUndefined(); // with removed only
    const files = (fs.readdirSync(file('assets')) as string[]).sort();
    expect(files).toEqual(['coin.png', 'hero-1.png', 'hero-2.png']);
    for (const output of ['assets/coin.png', ...frames(2)]) expect(exists(folder.at(output)), output).toBe(true);
    expect(await project.ledger()).toEqual(ledger);
  });
});
