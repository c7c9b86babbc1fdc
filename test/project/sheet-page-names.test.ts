// The names a sheet writes and the names it is given, checked before anything is paid. A sheet that
// needs several pages writes `<stem>-<k>.png` and `.json` for each page k from 0, one page a frame at
// most: those names are the sheet's own, as a slice's frames are its asset's, so another output named
// so (an image `fx-0` beside a sheet `fx` of two frames) is a file:line:col error at the sheet's
// `out`, naming both, exit 2, nothing charged — in either order of building, dry run or not, CLI or
// --json. A sheet that can make only one page takes no page name; one of n frames takes n. And a
// frame's name in `from` (`hero-2`, `"hero-*"` of a sliced `hero`) says whose frames they are and
// how to pack them. The real CLI in process against the mock's ledger.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError, parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, faults: { rate: 0 } } });
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const charges = async () => (await project.ledger()).filter((entry) => entry.amount < 0).length;
const exists = (file: string) => fs.existsSync(path.join(project.cwd, file));

/** Two inputs (up to two pages: `fx-0` and `fx-1`), with `extra` as further assets. */
const twoFrames = (...extra: string[]) => `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: coin, prompt: coin }
  - { id: gem, prompt: gem }
${extra.map((line) => `  - ${line}\n`).join('')}  - { id: fx, sheet: { from: [coin, gem], maxSize: 256 }, out: assets/fx.png }
`;

const CLASH = (id: string, line: number) =>
  `assetgen.yaml:${line}:64: assets[${line - 3}].out: "${id}" writes assets/${id}.*, a name this sheet's pages take: when its frames need several pages (up to 2: one per frame at most), it writes assets/fx-0.png and assets/fx-1.png, each with its .json; rename one of "fx" and "${id}" (an id or an out)`;

describe("a sheet's page names are its own", () => {
  it('an image named as a page: exit 2 in the dry run and the build, naming both, nothing charged or written', async () => {
    write(twoFrames('{ id: fx-0, prompt: a fireball }'));
    const dry = await project.run(['build', '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain(`error: ${CLASH('fx-0', 6)}`);

    for (const _again of [1, 2]) {
      const build = await project.run(['build', '--yes']);
      expect(build.code, build.stderr).toBe(2);
      expect(build.stderr).toContain(CLASH('fx-0', 6));
      expect(build.stderr).not.toContain('again to try');
    }
    const json = await project.run(['build', '--yes', '--json']);
    expect(json.code).toBe(2);
    expect(jsonError(json)).toMatchObject({ code: 'usage', exitCode: 2, message: CLASH('fx-0', 6) });
    expect(await charges()).toBe(0);
    expect(exists('assetgen.lock') || exists('assets')).toBe(false);
  });

  it('built as two pages first, then an asset named as its second page: refused before paying', async () => {
    write(twoFrames());
    const first = await project.run(['build', '--yes', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(parseJson(first).items.find((item: { id: string }) => item.id === 'fx').files).toEqual([
      'assets/fx-0.png',
      'assets/fx-0.json',
      'assets/fx-1.png',
      'assets/fx-1.json',
      'assets/fx.json',
    ]);
    expect(await charges()).toBe(2);

    write(twoFrames('{ id: fx-1, prompt: an ice bolt }'));
    const build = await project.run(['build', '--yes']);
    expect(build.code).toBe(2);
    expect(build.stderr).toContain(CLASH('fx-1', 6));
    expect(await charges()).toBe(2);
  });

  it('as many page names as frames: a one-frame sheet takes none, a sheet of 2 frames not `-2`; a sliced input counts its frames', async () => {
    const one = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: coin, prompt: coin }
  - { id: fx-0, prompt: a fireball }
  - { id: fx-2, prompt: a spark }
  - { id: fx, sheet: { from: [coin] }, out: assets/fx.png }
`;
    write(one);
    expect((await project.run(['build', '--dry-run'])).code).toBe(0);
    write(twoFrames('{ id: fx-2, prompt: a spark }'));
    expect((await project.run(['build', '--dry-run'])).code).toBe(0);

    write(`defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: hero, prompt: a knight, post: [{ slice: { columns: 3 } }] }
  - { id: atlas-2, prompt: a spark }
  - { id: atlas, sheet: { from: [hero] }, out: assets/atlas.png }
`);
    const dry = await project.run(['build', '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain(
      '"atlas-2" writes assets/atlas-2.*, a name this sheet\'s pages take: when its frames need several pages (up to 3: one per frame at most), it writes assets/atlas-0.png to assets/atlas-2.png, each with its .json; rename one of "atlas" and "atlas-2"',
    );
  });

  it('another sheet, a file out, a workflow whose files may take a page name; several at once in one issue', async () => {
    write(twoFrames('{ id: small, sheet: { from: coin }, out: assets/FX-1.png }', '{ id: bolt, prompt: a bolt, out: assets/fx-0.webp }'));
    const dry = await project.run(['build', '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain(
      'assetgen.yaml:7:64: assets[4].out: "small" writes assets/FX-1.png, "bolt" writes assets/fx-0.webp, names this sheet\'s pages take: when its frames need several pages (up to 2: one per frame at most), it writes assets/fx-0.png and assets/fx-1.png, each with its .json; rename "fx", or each of "small", "bolt" (an id or an out)',
    );

    write(`defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: fx, workflow: wf_sprite_sheet, set: { character: a wizard }, out: assets/ }
  - { id: atlas, sheet: { from: [fx] }, out: assets/fx.png }
`);
    const workflow = await project.run(['build', '--dry-run']);
    expect(workflow.code).toBe(2);
    expect(workflow.stderr).toContain('"fx" writes assets/fx-<node>.*, a name this sheet\'s pages take');
    expect(await charges()).toBe(0);
  });
});

describe("a frame's name in `from`", () => {
  const sheet = (from: string) => `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: hero, prompt: knight, post: [{ slice: { columns: 4 } }] }
  - { id: coin, prompt: coin }
  - { id: s, sheet: { from: ${from} }, out: assets/s.png }
`;

  it('says whose frames they are and how to pack them (the whole asset, frames chosen by animations)', async () => {
    write(sheet('["hero-*"]'));
    const glob = await project.run(['build', '--yes']);
    expect(glob.code).toBe(2);
    expect(glob.stderr).toContain(
      'assetgen.yaml:5:30: assets[2].sheet.from[0]: "hero-*" matches no image or workflow asset: these are frames of "hero"; use `from: [hero]` and choose frames with `animations:` (e.g. `animations: { <name>: "hero-*" }`)',
    );
    write(sheet('[coin, hero-2]'));
    const name = await project.run(['build', '--yes', '--json']);
    expect(name.code).toBe(2);
    expect(jsonError(name).message).toBe(
      'assetgen.yaml:5:36: assets[2].sheet.from[1]: unknown asset id "hero-2": it is a frame of "hero"; use `from: [hero]` and choose frames with `animations:` (e.g. `animations: { <name>: hero-2 }`)',
    );
    expect(await charges()).toBe(0);
  });

  it('a name past the slice’s frames, or of an asset not sliced, stays an unknown id', async () => {
    write(sheet('[hero-5]'));
    expect((await project.run(['build', '--dry-run'])).stderr).toContain('assets[2].sheet.from[0]: unknown asset id "hero-5"\n');
    write(sheet('[coin-1]'));
    expect((await project.run(['build', '--dry-run'])).stderr).toContain('assets[2].sheet.from[0]: unknown asset id "coin-1"\n');
    write(sheet('["coin-*"]'));
    expect((await project.run(['build', '--dry-run'])).stderr).toContain('"coin-*" matches no image or workflow asset\n');
  });
});
