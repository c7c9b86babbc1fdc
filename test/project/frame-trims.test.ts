// Where each frame of a sliced and trimmed asset sat in its cell (the lock's `trims`) reaches every
// reader of a build, as an unsliced asset's `trim` does: each frame's provenance sidecar has its own
// `trim` (in the default folder, and beside the outputs), the build's --json item has `trims` — one
// per frame, in the order of its files — whether built or unchanged, and so does the MCP build tool's
// result, which its outputSchema accepts (the SDK's client checks it). Re-cutting is free: the
// ledger does not move.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import type { TrimPlacement } from '../../src/pipeline/records.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { startMcp } from '../support/mcp.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const build = (args: string[] = []) => project.run(['build', '--yes', '--json', ...args]);
const lock = () => readLock(path.join(project.cwd, 'assetgen.lock'));

const PLACES = [
  { name: 'the default folder', setting: 'sidecar', at: (output: string) => `.assetgen/provenance/${output}.assetgen.json` },
  { name: 'beside the outputs', setting: '{ sidecars: beside }', at: (output: string) => `${output}.assetgen.json` },
] as const;

// The mock's picture on its flat background, keyed out: each trim has something to cut.
const manifest = (setting: string, columns: number) => `provenance: ${setting}
defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: hero, prompt: a knight walking, post: [{ key: '#1d2617' }, { slice: { columns: ${columns} } }, trim] }
  - { id: coin, prompt: a gold coin, post: [{ key: '#1d2617' }, trim] }
`;

type Item = { id: string; outcome: string; files: string[]; trim?: TrimPlacement; trims?: TrimPlacement[] };
const itemsOf = (result: CliResult): Record<string, Item> =>
  Object.fromEntries((parseJson(result).items as Item[]).map((item) => [item.id, item]));

describe.each(PLACES)('the trims of sliced frames ($name)', ({ setting, at }) => {
  const sidecarTrim = (output: string): unknown => JSON.parse(fs.readFileSync(path.join(project.cwd, at(output)), 'utf8')).trim;

  /** The lock's trims reach the items and the sidecars: per frame, in the order of the files. */
  function expectTrimsEverywhere(result: CliResult, outcome: string, frames: number, coinOutcome = outcome): void {
    const { hero, coin } = lock().assets;
    expect(hero!.trims).toHaveLength(frames);
    const items = itemsOf(result);
    expect(items.hero).toMatchObject({ outcome, files: hero!.files.map((entry) => entry.path), trims: hero!.trims });
    expect(items.hero!.trim).toBeUndefined();
    expect(items.coin).toMatchObject({ outcome: coinOutcome, trim: coin!.trim });
    expect(items.coin!.trims).toBeUndefined();
    hero!.files.forEach((entry, index) => expect(sidecarTrim(entry.path), entry.path).toEqual(hero!.trims![index]));
    expect(sidecarTrim('assets/coin.png')).toEqual(coin!.trim);
  }

  it('each frame has its own trim in its sidecar, and the --json item all of them, built and unchanged; an unsliced asset its trim', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': manifest(setting, 4) });
    const first = await build();
    expect(first.code, first.stderr).toBe(0);
    expectTrimsEverywhere(first, 'built', 4);
    // Not one record repeated: the first frame's picture sits elsewhere in its cell than the second's.
    const trims = lock().assets.hero!.trims!;
    expect(trims[0]).not.toEqual(trims[1]);
    const ledger = await project.ledger();

    const again = await build();
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson(again).sidecars).toMatchObject({ written: [], current: 5 });
    expectTrimsEverywhere(again, 'unchanged', 4);

    // A re-cut, re-processed from the kept original: the new frames' trims, everywhere, for free.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest(setting, 2) });
    const recut = await build();
    expect(recut.code, recut.stderr).toBe(0);
    expectTrimsEverywhere(recut, 'built', 2, 'unchanged');
    expect(itemsOf(recut).hero!.files).toEqual(['assets/hero-1.png', 'assets/hero-2.png']);

    // The disclosure reads the same records: each frame with its trim.
    const disclosure = parseJson(await project.run(['report', '--disclosure', '--json']));
    const byFile = new Map((disclosure.files as { file: string; trim?: unknown }[]).map((entry) => [entry.file, entry.trim]));
    expect([byFile.get('assets/hero-1.png'), byFile.get('assets/hero-2.png')]).toEqual(lock().assets.hero!.trims);
    expect(await project.ledger()).toEqual(ledger);
  });
});

describe('the MCP build result', () => {
  it("carries each sliced frame's trims (built and unchanged), which the build tool's outputSchema accepts", async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('sidecar', 4) });
    const mcp = await startMcp({ env: project.env(), cwd: project.cwd });
    try {
      await mcp.client.listTools(); // the client keeps each tool's validator: every structuredContent is checked
      for (const outcome of ['built', 'unchanged']) {
        const { result } = await mcp.call('build');
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        const items = (result.structuredContent as { items: Item[] }).items;
        const hero = items.find((item) => item.id === 'hero');
        expect(hero).toMatchObject({ outcome, trims: lock().assets.hero!.trims });
        expect(items.find((item) => item.id === 'coin')).toMatchObject({ outcome, trim: lock().assets.coin!.trim });
      }
    } finally {
      await mcp.close();
    }
  });
});
