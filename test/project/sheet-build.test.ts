// `sheet:` assets in a build, against the mock's ledger: three icons paid once each and packed into
// one atlas whose every frame is, pixel for pixel, the icon at the rectangle its JSON names; a second
// build does nothing (the atlas not even rewritten); a change of padding re-packs for free; a changed
// prompt pays once and re-packs; two builds from scratch give the same atlas bytes; the gallery shows
// the atlas with each frame outlined where its JSON says.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PhaserMultiAtlas, TexturePackerJsonHash } from '../../src/imaging/atlas.js';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, type CliResult } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { whilePaying, writeFiles } from './helpers.js';

const manifest = (options: { padding?: number; swordPrompt?: string; maxSize?: number } = {}) => `defaults:
  agent: icon-forge
  out: assets/icons/
assets:
  - { id: sword, prompt: ${options.swordPrompt ?? 'a rusty sword'} }
  - { id: shield, prompt: a wooden shield }
  - { id: gem, prompt: a blue gem }
  - id: icons
    sheet: { from: [sword, shield, gem], padding: ${options.padding ?? 2}, extrude: 1, maxSize: ${options.maxSize ?? 1024} }
    out: assets/icons.png
`;

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const build = (args: string[] = []) => project.run(['build', '--json', ...args]);
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const file = (name: string) => path.join(project.cwd, name);
type Item = { id: string; outcome: string; status: string; action?: string; estimate?: number; reasons: string[]; media?: unknown[] };
const items = (result: CliResult) => Object.fromEntries((parseJson(result).items as Item[]).map((item) => [item.id, item]));
const atlasData = () => JSON.parse(fs.readFileSync(file('assets/icons.json'), 'utf8')) as TexturePackerJsonHash;

async function paidCalls(work: () => Promise<CliResult>): Promise<{ result: CliResult; charges: number }> {
  const before = (await project.ledger()).length;
  const result = await work();
  const added = (await project.ledger()).slice(before);
  return { result, charges: added.filter((entry) => entry.amount < 0).length };
}

const rgba = async (input: string | Buffer, region?: { left: number; top: number; width: number; height: number }) => {
  const image = region ? sharp(input).extract(region) : sharp(input);
  return image.ensureAlpha().raw().toBuffer();
};

/** Every frame of the atlas is its input file's pixels, at the rectangle the JSON names. */
async function expectFramesMatch(names: string[]): Promise<void> {
  const data = atlasData();
  expect(Object.keys(data.frames).sort()).toEqual([...names].sort());
  const atlas = fs.readFileSync(file('assets/icons.png'));
  const { width, height } = await sharp(atlas).metadata();
  expect({ w: width, h: height }).toEqual(data.meta.size);
  for (const name of names) {
    const { frame, sourceSize } = data.frames[name]!;
    const input = file(`assets/icons/${name}.png`);
    const meta = await sharp(input).metadata();
    expect(sourceSize).toEqual({ w: meta.width, h: meta.height });
    const region = { left: frame.x, top: frame.y, width: frame.w, height: frame.h };
    expect((await rgba(atlas, region)).equals(await rgba(input)), name).toBe(true);
  }
}

/** `build --force icons`: re-packed with no paid call, every frame where the JSON says. */
async function expectForcedRepack(): Promise<void> {
  const forced = await paidCalls(() => build(['--force', 'icons']));
  expect(forced.charges).toBe(0);
  expect(items(forced.result).icons).toMatchObject({ outcome: 'built' });
  await expectFramesMatch(['sword', 'shield', 'gem']);
}

describe('sheets in a build', () => {
  it('3 icons: 3 paid calls, the atlas and its JSON written, every frame where the JSON says; a second build does nothing', async () => {
    write(manifest());
    const dry = items(await project.run(['build', '--dry-run', '--json']));
    expect(dry.icons).toMatchObject({ status: 'new', action: 'reprocess', estimate: 0 });
    const { result, charges } = await paidCalls(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(3);
    expect(items(result).icons).toMatchObject({ outcome: 'built' });
    expect(atlasData().meta.image).toBe('icons.png');
    // One `media` entry per file: the data file is JSON (no pixel size), the atlas a PNG of its size.
    expect(items(result).icons!.media).toEqual([
      { path: 'assets/icons.png', format: 'png', width: atlasData().meta.size.w, height: atlasData().meta.size.h },
      { path: 'assets/icons.json', format: 'json', width: null, height: null },
    ]);
    await expectFramesMatch(['sword', 'shield', 'gem']);
    const entry = readLock(file('assetgen.lock')).assets.icons!;
    expect(entry.kind).toBe('sheet');
    expect(entry.files.map((recorded) => recorded.path)).toEqual(['assets/icons.json', 'assets/icons.png']);
    expect(entry.inputs!.map((input) => input.path).sort()).toEqual([
      'assets/icons/gem.png',
      'assets/icons/shield.png',
      'assets/icons/sword.png',
    ]);

    const bytes = fs.readFileSync(file('assets/icons.png'));
    const mtime = fs.statSync(file('assets/icons.png')).mtimeMs;
    const again = await paidCalls(() => build());
    expect(again.charges).toBe(0);
    expect(Object.values(items(again.result)).map((item) => item.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(fs.statSync(file('assets/icons.png')).mtimeMs).toBe(mtime);
    expect(fs.readFileSync(file('assets/icons.png'))).toEqual(bytes);
  });

  it('changing only the padding: no paid call, the atlas re-packed', async () => {
    write(manifest());
    expect((await build()).code).toBe(0);
    const before = atlasData();
    write(manifest({ padding: 8 }));
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.icons).toMatchObject({ status: 'changed', action: 'reprocess', estimate: 0 });
    expect(plan.sword).toMatchObject({ action: 'none' });
    const { result, charges } = await paidCalls(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(0);
    expect(items(result).icons).toMatchObject({ outcome: 'built' });
    expect(atlasData()).not.toEqual(before);
    await expectFramesMatch(['sword', 'shield', 'gem']);
  });

  it('a set larger than maxSize packs pages (icons-0.png…, each its JSON-hash, icons.json the multiatlas), for free; back to one page removes them', async () => {
    write(manifest());
    expect((await build()).code).toBe(0);
    // A 128×128 icon with its extrusion takes a 256² page alone: three pages.
    write(manifest({ maxSize: 256 }));
    const { result, charges } = await paidCalls(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(0);
    const pageFiles = [
      'assets/icons-0.png',
      'assets/icons-0.json',
      'assets/icons-1.png',
      'assets/icons-1.json',
      'assets/icons-2.png',
      'assets/icons-2.json',
    ];
    expect(items(result).icons).toMatchObject({ outcome: 'built' });
    expect(fs.existsSync(file('assets/icons.png'))).toBe(false);
    const entry = readLock(file('assetgen.lock')).assets.icons!;
    expect(entry.files.map((recorded) => recorded.path).sort()).toEqual([...pageFiles, 'assets/icons.json'].sort());
    for (const recorded of entry.files) {
      const bytes = fs.readFileSync(file(recorded.path));
      expect([recorded.size, recorded.sha256]).toEqual([bytes.length, createHash('sha256').update(bytes).digest('hex')]);
    }
    const multi = JSON.parse(fs.readFileSync(file('assets/icons.json'), 'utf8')) as PhaserMultiAtlas;
    expect(multi.textures.map((texture) => texture.image)).toEqual(['icons-0.png', 'icons-1.png', 'icons-2.png']);
    const seen: string[] = [];
    for (const k of [0, 1, 2]) {
      const data = JSON.parse(fs.readFileSync(file(`assets/icons-${k}.json`), 'utf8')) as TexturePackerJsonHash & {
        meta: { related_multi_packs: string[] };
      };
      expect(data.meta.image).toBe(`icons-${k}.png`);
      expect(data.meta.related_multi_packs).toEqual([0, 1, 2].filter((other) => other !== k).map((other) => `icons-${other}.json`));
      expect(multi.textures[k]!.frames.map((frame) => frame.filename)).toEqual(Object.keys(data.frames));
      for (const [name, { frame }] of Object.entries(data.frames)) {
        const region = { left: frame.x, top: frame.y, width: frame.w, height: frame.h };
        expect((await rgba(file(`assets/icons-${k}.png`), region)).equals(await rgba(file(`assets/icons/${name}.png`))), name).toBe(true);
        seen.push(name);
      }
    }
    expect(seen.sort()).toEqual(['gem', 'shield', 'sword']);
    expect(items(await build()).icons).toMatchObject({ outcome: 'unchanged' });
    // The gallery shows the first page with its frame outlined, each page a picture, no JSON as one.
    expect((await project.run(['report', '-o', 'out/pages.html'])).code).toBe(0);
    const card = /<article class="card[^"]*" data-id="icons"[\s\S]*?<\/article>/.exec(fs.readFileSync(file('out/pages.html'), 'utf8'))![0];
    expect(card).toContain('alt="assets/icons-0.png">');
    expect(card).toContain('<dt>frames</dt><dd>1</dd><dt>data</dt><dd><code>assets/icons-0.json</code></dd>');
    expect(card.match(/<figure/g)).toHaveLength(3);
    expect(card).not.toContain('placeholder');

    write(manifest());
    const back = await paidCalls(() => build());
    expect(back.charges).toBe(0);
    expect(readLock(file('assetgen.lock')).assets.icons!.files.map((recorded) => recorded.path)).toEqual([
      'assets/icons.json',
      'assets/icons.png',
    ]);
    for (const page of pageFiles) expect(fs.existsSync(file(page)), page).toBe(false);
    await expectFramesMatch(['sword', 'shield', 'gem']);
  });

  it('a page file in the way that assetgen did not make: the sheet fails naming it, nothing written; --force replaces it', async () => {
    write(manifest({ maxSize: 256 }));
    writeFiles(project.cwd, { 'assets/icons-1.png': 'mine' });
    const refused = await build();
    expect(refused.code).toBe(1);
    expect(items(refused).icons).toMatchObject({ outcome: 'failed' });
    expect(JSON.stringify(parseJson(refused))).toContain('assets/icons-1.png exists and assetgen did not make it');
    expect(fs.readFileSync(file('assets/icons-1.png'), 'utf8')).toBe('mine');
    expect(fs.readdirSync(file('assets')).sort()).toEqual(['icons', 'icons-1.png']);
    const forced = await paidCalls(() => build(['--force', 'icons']));
    expect(forced.result.code, forced.result.stderr).toBe(0);
    expect(forced.charges).toBe(0);
    expect((await sharp(file('assets/icons-1.png')).metadata()).width).toBe(256);
  });

  it('changing one icon’s prompt: exactly one paid call, and the sheet re-packed from the new icon', async () => {
    write(manifest());
    expect((await build()).code).toBe(0);
    write(manifest({ swordPrompt: 'a golden sword' }));
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.icons).toMatchObject({ action: 'reprocess' });
    expect(plan.icons!.reasons).toContain('sword built in this build');
    const { result, charges } = await paidCalls(() => build());
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(1);
    expect(items(result)).toMatchObject({ sword: { outcome: 'built' }, shield: { outcome: 'unchanged' }, icons: { outcome: 'built' } });
    await expectFramesMatch(['sword', 'shield', 'gem']);
    const sword = readLock(file('assetgen.lock')).assets.sword!.files[0]!;
    expect(readLock(file('assetgen.lock')).assets.icons!.inputs).toContainEqual(sword);
  });

  it('`build sword` after a prompt change takes its sheet along: one paid call, the atlas re-packed with the new sword, "fed by sword"', async () => {
    write(manifest());
    expect((await build()).code).toBe(0);
    const oldSword = fs.readFileSync(file('assets/icons/sword.png'));
    write(manifest({ swordPrompt: 'a golden sword' }));
    const plan = parseJson(await project.run(['build', '--dry-run', '--json', 'sword']));
    expect((plan.items as Item[]).map((item) => item.id)).toEqual(['sword', 'icons']);
    expect(items(await project.run(['build', '--dry-run', '--json', 'sword'])).icons).toMatchObject({
      action: 'reprocess',
      reasons: ['fed by sword', 'sword built in this build', 'packed after its inputs, no paid call'],
    });
    expect(plan.staleSheets).toBeUndefined();
    const { result, charges } = await paidCalls(() => build(['sword']));
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(1);
    expect(items(result)).toMatchObject({ sword: { outcome: 'built' }, icons: { outcome: 'built' } });
    expect(parseJson(result).staleSheets).toBeUndefined();
    expect(fs.readFileSync(file('assets/icons/sword.png')).equals(oldSword)).toBe(false);
    // The atlas's sword frame is the new sword file, pixel for pixel (and the others unchanged).
    await expectFramesMatch(['sword', 'shield', 'gem']);
    const again = await paidCalls(() => build(['sword']));
    expect(again.charges).toBe(0);
    expect(items(again.result)).toMatchObject({ sword: { outcome: 'unchanged' }, icons: { outcome: 'unchanged' } });
  });

  it('a selection whose sheet has inputs not built: the sheet is named stale in --json (dry run and build) and on stderr', async () => {
    write(manifest());
    const dry = parseJson(await project.run(['build', '--dry-run', '--json', 'sword']));
    const reason = 'fed by sword; shield, gem not built yet: not packed';
    expect(dry.staleSheets).toEqual([{ id: 'icons', reason }]);
    const { result, charges } = await paidCalls(() => build(['sword']));
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(1);
    expect(items(result).icons).toMatchObject({ outcome: 'skipped' });
    expect(parseJson(result).staleSheets).toEqual([{ id: 'icons', reason }]);
    expect(fs.existsSync(file('assets/icons.png'))).toBe(false);
    const human = await project.run(['build', 'shield']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain('warning: sheet icons left stale: fed by shield; gem not built yet: not packed');
  });

  it('a stale sheet names at most ten of its inputs, then how many more: a 5,000-frame sheet is one line', async () => {
    const ids = Array.from({ length: 13 }, (_, i) => `icon${String(i).padStart(2, '0')}`);
    const icons = ids.map((id) => `  - { id: ${id}, prompt: icon ${id} }`).join('\n');
    write(
      `defaults:\n  agent: icon-forge\n  out: assets/icons/\nassets:\n${icons}\n  - { id: icons, sheet: { from: ["icon*"] }, out: assets/icons.png }\n`,
    );
    const dry = parseJson(await project.run(['build', '--dry-run', '--json', 'icon00']));
    const unbuilt = `${ids.slice(1, 11).join(', ')} and 2 more`;
    expect(dry.staleSheets).toEqual([{ id: 'icons', reason: `fed by icon00; ${unbuilt} not built yet: not packed` }]);
  });

  it('--force on a selected input does not re-pack a hand-edited sheet it feeds: kept and named stale', async () => {
    write(manifest());
    expect((await build()).code).toBe(0);
    fs.appendFileSync(file('assets/icons.json'), ' ');
    const edited = fs.readFileSync(file('assets/icons.json'));
    const { result, charges } = await paidCalls(() => build(['--force', 'sword']));
    expect(result.code, result.stderr).toBe(0);
    expect(charges).toBe(1);
    expect(items(result).icons).toMatchObject({ status: 'edited', outcome: 'kept' });
    expect(parseJson(result).staleSheets).toEqual([
      { id: 'icons', reason: 'fed by sword; assets/icons.json edited since assetgen wrote it; left alone (--force re-packs)' },
    ]);
    expect(fs.readFileSync(file('assets/icons.json'))).toEqual(edited);
  });

  it('a hand-edited atlas is kept, as any edited output; --force re-packs it with no paid call', async () => {
    write(manifest());
    expect((await build()).code).toBe(0);
    fs.appendFileSync(file('assets/icons.json'), ' ');
    const kept = await build();
    expect(items(kept).icons).toMatchObject({ status: 'edited', outcome: 'kept' });
    await expectForcedRepack();
  });

  it('a data file of the sheet’s name that assetgen did not write is kept, as the atlas would be; --force replaces it', async () => {
    write(manifest());
    writeFiles(project.cwd, { 'assets/icons.json': '{"mine": true}\n' });
    const plan = items(await project.run(['build', '--dry-run', '--json']));
    expect(plan.icons).toMatchObject({ action: 'keep' });
    expect(plan.icons!.reasons).toContain('assets/icons.json exists and assetgen did not make it: left alone (--force replaces it)');
    const kept = await build();
    expect(kept.code, kept.stderr).toBe(0);
    expect(items(kept).icons).toMatchObject({ outcome: 'kept' });
    expect(fs.readFileSync(file('assets/icons.json'), 'utf8')).toBe('{"mine": true}\n');
    expect(fs.existsSync(file('assets/icons.png'))).toBe(false);
    await expectForcedRepack();
  });

  it('a link put where the data file goes once the plan is made: the sheet fails, neither of its files written', async () => {
    write(manifest());
    expect((await build(['sword', 'shield'])).code).toBe(0);
    const outside = path.join(project.home.home, 'outside.json');
    const plant = () => {
      fs.mkdirSync(file('assets'), { recursive: true });
      fs.symlinkSync(outside, file('assets/icons.json'));
    };
    const result = await whilePaying(project.mock, project.cwd, 'gem', () => build(['-j', '1']), plant);
    expect(result.code).toBe(1);
    expect(items(result).icons).toMatchObject({ outcome: 'failed' });
    expect(fs.existsSync(file('assets/icons.png'))).toBe(false);
    expect(fs.existsSync(outside)).toBe(false);
    expect(readLock(file('assetgen.lock')).assets.icons).toBeUndefined();
  });

  it('the gallery (build --report, then report from the lock) shows the atlas with its 3 frames outlined, and no picture of the JSON', async () => {
    write(manifest());
    const result = await build(['--report', 'out/gallery.html']);
    expect(result.code, result.stderr).toBe(0);
    const { meta, frames } = atlasData();
    const percent = (part: number, whole: number) => `${Math.round((part / whole) * 1e6) / 1e4}%`;
    const expected = Object.entries(frames)
      .map(([name, { frame }]) => {
        const box = [
          percent(frame.x, meta.size.w),
          percent(frame.y, meta.size.h),
          percent(frame.w, meta.size.w),
          percent(frame.h, meta.size.h),
        ];
        return `<span class="frame" style="left:${box[0]};top:${box[1]};width:${box[2]};height:${box[3]}" title="${name}"><span>${name}</span></span>`;
      })
      .join('');
    for (const page of ['out/gallery.html', 'out/lock.html']) {
      if (page === 'out/lock.html') expect((await project.run(['report', '-o', page])).code).toBe(0);
      const html = fs.readFileSync(file(page), 'utf8');
      const card = /<article class="card[^"]*" data-id="icons"[\s\S]*?<\/article>/.exec(html)![0];
      expect(card).toContain(
        `<div class="frames"><img src="data:image/png;base64,${fs.readFileSync(file('assets/icons.png')).toString('base64')}"`,
      );
      expect(card).toContain(`alt="assets/icons.png">${expected}</div>`);
      expect(card.match(/class="frame"/g)).toHaveLength(3);
      expect(card).toContain(`<span class="dims">${meta.size.w}×${meta.size.h} px</span>`);
      expect(card).toContain('<dt>frames</dt><dd>3</dd><dt>data</dt><dd><code>assets/icons.json</code></dd>');
      expect(card).not.toContain('placeholder');
      expect(card.match(/<figure/g)).toHaveLength(1);
    }
  });

  it('two builds from scratch give identical atlas bytes', async () => {
    write(manifest());
    expect((await build()).code).toBe(0);
    const first = [fs.readFileSync(file('assets/icons.png')), fs.readFileSync(file('assets/icons.json'))];
    for (const name of ['assets', 'assetgen.lock', '.assetgen']) fs.rmSync(file(name), { recursive: true, force: true });
    expect((await build()).code).toBe(0);
    expect(fs.readFileSync(file('assets/icons.png'))).toEqual(first[0]);
    expect(fs.readFileSync(file('assets/icons.json'))).toEqual(first[1]);
  });
});
