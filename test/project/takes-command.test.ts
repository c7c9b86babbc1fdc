// `assetgen takes <id>` from the real CLI (in-process) on a project a real build made, its lock then
// given takes as a build with `variants` records them (test/support/takes.ts): the listing and its
// numbers, the contact sheet's PNG read back label by label through the layout written beside it,
// and the usage errors naming what exists.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { INLINE_IMAGE_LIMITS } from '../../src/imaging/limits.js';
import { SHEET_COLOURS } from '../../src/imaging/contact-sheet.js';
import { readLock, writeLockAtomicSync } from '../../src/pipeline/lock.js';
import { jsonError, parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { addTakes, pngOf } from '../support/takes.js';
import { readLabel, readPixels } from '../imaging/pixels.js';
import { pickCommand } from '../../src/commands/project/takes.js';

const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - id: sword
    prompt: rusty sword icon
    out: assets/icons/sword.png
  - id: shield
    prompt: wooden shield
`;

const project = useMockProject({ files: { 'assetgen.yaml': MANIFEST } });
const { run } = project;

/** Three takes of sword: a small red block on a transparent 64×64 canvas, an opaque blue square, a green disc. */
async function threeTakes(): Promise<Buffer[]> {
  return [
    await pngOf(64, 64, (x, y) => (x >= 8 && x < 24 && y >= 16 && y < 48 ? [210, 30, 30, 255] : [0, 0, 0, 0])),
    await pngOf(48, 48, () => [30, 60, 220, 255]),
    await pngOf(40, 40, (x, y) => ((x - 20) ** 2 + (y - 20) ** 2 < 150 ? [40, 190, 70, 255] : [0, 0, 0, 0])),
  ];
}

beforeEach(async () => {
  const built = await run(['build', '--mock', '--yes']);
  expect(built.code, built.stderr).toBe(0);
  addTakes(project.cwd, 'sword', await threeTakes(), 2);
});

describe('assetgen takes', () => {
  it('lists the takes with their numbers and writes the contact sheet, each label reading back as its take', async () => {
    const result = await run(['takes', 'sword', '--json']);
    expect(result.code, result.stderr).toBe(0);
    // The document says it all: no people's summary beside it on stderr.
    expect(result.stderr).toBe('');
    const doc = parseJson(result);
    expect(doc.id).toBe('sword');
    expect(doc.picked).toBe(2);
    expect(doc.takes.map((take: { k: number; picked: boolean }) => [take.k, take.picked])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);
    const [first, second, third] = doc.takes;
    expect(first).toMatchObject({
      file: '.assetgen/candidates/sword/1.png',
      credits: 10,
      state: 'ok',
      pick: 'assetgen pick sword 1',
      metrics: {
        width: 64,
        height: 64,
        opaqueBounds: { left: 8, top: 16, width: 16, height: 32 },
        fill: 0.125,
        colours: { count: 2, atLeast: false },
        transparency: true,
      },
    });
    expect(first.size).toBe(fs.statSync(path.join(project.cwd, first.file)).size);
    expect(second.metrics).toMatchObject({ width: 48, height: 48, fill: 1, colours: { count: 1, atLeast: false }, transparency: false });
    expect(third.metrics).toMatchObject({ width: 40, height: 40, transparency: true });
    expect(doc.takes.every((take: object) => !('bytes' in take) && !('image' in take))).toBe(true);

    const sheetFile = path.join(project.cwd, '.assetgen', 'takes', 'sword.png');
    expect(doc.contactSheet).toMatchObject({ file: sheetFile, layout: path.join(project.cwd, '.assetgen', 'takes', 'sword.json') });
    const png = fs.readFileSync(sheetFile);
    expect(png.length).toBe(doc.contactSheet.bytes);
    expect(png.length).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxBytes);
    const layout = JSON.parse(fs.readFileSync(doc.contactSheet.layout, 'utf8'));
    expect(layout).toMatchObject({ asset: 'sword', image: 'sword.png', pick: 'assetgen pick sword <k>', omitted: [] });
    const sheet = await readPixels(png);
    expect([sheet.width, sheet.height]).toEqual([layout.width, layout.height]);
    expect(Math.max(sheet.width, sheet.height)).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxSide);
    for (const cell of layout.takes) {
      expect(readLabel(sheet, cell.label), `the label over ${cell.file}`).toBe(String(cell.k));
      expect(cell.file).toBe(`.assetgen/candidates/sword/${cell.k}.png`);
      const corner = sheet.data.readUInt32BE(((cell.cell.y + cell.cell.h - 1) * sheet.width + cell.cell.x) * 4);
      expect(corner === SHEET_COLOURS.picked >>> 0, `take ${cell.k}'s frame`).toBe(cell.k === 2);
    }
    // Take 2 is an opaque blue square: its picture box is blue in the middle.
    const blue = layout.takes.find((cell: { k: number }) => cell.k === 2).image;
    const middle = ((blue.y + blue.h / 2) * sheet.width + blue.x + blue.w / 2) * 4;
    expect([...sheet.data.subarray(middle, middle + 4)]).toEqual([30, 60, 220, 255]);
  });

  it('prints a table for people, the picked take starred, and where the sheet went; --contact-sheet puts it elsewhere', async () => {
    const result = await run(['takes', 'sword', '--contact-sheet', 'review/sword-takes.png']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n');
    expect(rows.map((row) => row.split('\t').slice(0, 2))).toEqual([
      ['1', path.join('.assetgen', 'candidates', 'sword', '1.png')],
      ['2*', path.join('.assetgen', 'candidates', 'sword', '2.png')],
      ['3', path.join('.assetgen', 'candidates', 'sword', '3.png')],
    ]);
    expect(rows[0]).toContain('64×64 · drawn 16×32 (13% of the canvas) · 2 colours · has transparency');
    expect(result.stderr).toContain('sword: 3 takes, take 2 picked');
    expect(result.stderr).toContain('assetgen pick sword <k>');
    expect(result.stderr).toContain(`Contact sheet: ${path.join('review', 'sword-takes.png')}`);
    expect(
      fs
        .readFileSync(path.join(project.cwd, 'review', 'sword-takes.png'))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(JSON.parse(fs.readFileSync(path.join(project.cwd, 'review', 'sword-takes.json'), 'utf8')).image).toBe('sword-takes.png');
    expect(fs.existsSync(path.join(project.cwd, '.assetgen', 'takes'))).toBe(false);
  });

  it('a take whose file is gone is listed as missing and crossed out on the sheet; the others are still measured', async () => {
    fs.rmSync(path.join(project.cwd, '.assetgen', 'candidates', 'sword', '3.png'));
    fs.writeFileSync(path.join(project.cwd, '.assetgen', 'candidates', 'sword', '1.png'), await pngOf(8, 8, () => [1, 2, 3, 255]));
    const doc = parseJson(await run(['takes', 'sword', '--json']));
    expect(doc.takes.map((take: { state: string }) => take.state)).toEqual(['edited', 'ok', 'missing']);
    expect(doc.takes[0].metrics).toMatchObject({ width: 8, height: 8 });
    expect(doc.takes[2].metrics).toBeUndefined();
    const layout = JSON.parse(fs.readFileSync(doc.contactSheet.layout, 'utf8'));
    expect(layout.takes.map((cell: { missing: boolean }) => cell.missing)).toEqual([false, false, true]);
  });

  it('an unknown id, or an asset without takes, is a usage error naming the assets that have some', async () => {
    const unknown = await run(['takes', 'axe', '--json']);
    expect(unknown.code).toBe(2);
    expect(jsonError(unknown)).toMatchObject({ code: 'usage' });
    expect(jsonError(unknown).message).toBe('No asset "axe" in assetgen.yaml or assetgen.lock. Assets with takes: sword.');
    const single = await run(['takes', 'shield']);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('"shield" has no takes in assetgen.lock (it was built as a single take). Assets with takes: sword.');
    expect(single.stderr).toContain('variants: N');
    const notPng = await run(['takes', 'sword', '--contact-sheet', 'sheet.jpg']);
    expect(notPng.code).toBe(2);
    expect(notPng.stderr).toContain('give a path ending in .png');
  });

  it('a lock whose take points outside the project is refused, nothing read or written', async () => {
    const lockFile = path.join(project.cwd, 'assetgen.lock');
    const lock = readLock(lockFile);
    lock.assets.sword!.candidates![0]!.file = '../outside.png';
    writeLockAtomicSync(lockFile, lock);
    const result = await run(['takes', 'sword']);
    expect(result.code).toBe(2);
    // The lock's reader checks every take's record before anything is read (pipeline/lock.ts).
    expect(result.stderr).toContain('assets.sword.candidates: ../outside.png is not a path inside the project');
    expect(fs.existsSync(path.join(project.cwd, '.assetgen', 'takes'))).toBe(false);
  });
});

describe('the gallery of a project with takes', () => {
  it('assetgen report: the takes on the card, with their numbers and pick commands, in the page and the --json document', async () => {
    fs.rmSync(path.join(project.cwd, '.assetgen', 'candidates', 'sword', '3.png'));
    const result = await run(['report', '-o', 'out/r.html', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const sword = parseJson(result).items.find((item: { id: string }) => item.id === 'sword');
    expect(sword.takes).toEqual([
      expect.objectContaining({
        k: 1,
        picked: false,
        credits: 10,
        pick: 'assetgen pick sword 1',
        file: { path: '.assetgen/candidates/sword/1.png', width: 64, height: 64 },
      }),
      expect.objectContaining({
        k: 2,
        picked: true,
        pick: 'assetgen pick sword 2',
        metrics: expect.objectContaining({ fill: 1, transparency: false }),
      }),
      {
        k: 3,
        picked: false,
        credits: 10,
        pick: 'assetgen pick sword 3',
        file: { path: '.assetgen/candidates/sword/3.png', problem: 'missing' },
      },
    ]);
    expect(parseJson(result).items.find((item: { id: string }) => item.id === 'shield').takes).toBeUndefined();
    const html = fs.readFileSync(path.join(project.cwd, 'out', 'r.html'), 'utf8');
    const card = /<article class="card s-\w+ has-takes" data-id="sword"[\s\S]*?<\/article>/.exec(html)![0];
    expect(card.match(/<li class="take[^"]*" data-k="(\d+)" data-picked="(\w+)">/g)).toEqual([
      '<li class="take" data-k="1" data-picked="false">',
      '<li class="take picked" data-k="2" data-picked="true">',
      '<li class="take" data-k="3" data-picked="false">',
    ]);
    expect(card).toContain('<p class="pick-line">picked: <code class="pick">assetgen pick sword 2</code></p>');
    expect(card.match(/<img src="data:image\/png;base64,[^"]+" alt="\.assetgen\/candidates/g)).toHaveLength(2);
    expect(card).toContain('<div class="placeholder" role="img" aria-label="missing">');
  });

  it('pick commands are quoted for a POSIX shell where a word needs it', () => {
    expect(pickCommand('sword', 3)).toBe('assetgen pick sword 3');
    expect(pickCommand("it's here", 2)).toBe("assetgen pick 'it'\\''s here' 2");
  });
});
