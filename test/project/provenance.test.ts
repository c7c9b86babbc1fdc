// Provenance against the real mock (in-process CLI over loopback): `provenance: sidecar` writes one
// `<file>.assetgen.json` per output under .assetgen/provenance/ (never in the game's asset folders),
// whose job id and credits are the lock's and the mock ledger's, the images' bytes untouched;
// `{sidecars: beside}` beside each output, `{sidecars: folder, dir}` elsewhere, and a change of place
// moves assetgen's own sidecars; none without the setting; a missing sidecar comes back for free; and
// `assetgen report --disclosure` lists every output (Markdown, and --json).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFile } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';
import { DIGITAL_SOURCE_TYPE, type Disclosure, type ProvenanceRecord } from '../../src/pipeline/provenance.js';
import { jsonError, parseJson } from '../support/cli.js';
import { spendByKey } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const ASSETS = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - id: sword
    prompt: rusty sword icon
    agent: icon-forge
    out: assets/icons/sword.png
  - id: potion
    prompt: red potion
  - id: hero
    workflow: wf_sprite_sheet
    set: { character: a dwarf miner }
    out: assets/sprites/hero/
  - id: torch
    video: torch flickering on a wall
    out: assets/fx/
`;
const WITH_SIDECARS = `provenance: sidecar\n${ASSETS}`;

const project = useMockProject({
  mock: { credits: 100_000 },
  config: { credits: 100_000, videoPollAfterMs: 20, videoSteps: 2, faults: { rate: 0 } },
  files: { 'assetgen.yaml': WITH_SIDECARS },
});
const build = (args: string[] = []) => project.run(['build', '--yes', '--json', ...args]);
const lockOf = () => readLock(path.join(project.cwd, 'assetgen.lock'));
const outputs = () => Object.values(lockOf().assets).flatMap((entry) => entry.files);
/** Where `provenance: sidecar` puts the sidecar of an output. */
const inFolder = (file: string): string => `.assetgen/provenance/${file}.assetgen.json`;
const sidecar = (file: string, where = inFolder(file)): ProvenanceRecord =>
  JSON.parse(fs.readFileSync(path.join(project.cwd, where), 'utf8')) as ProvenanceRecord;
/** Every file under the project's assets/ folder. */
const tree = (): string[] => (fs.readdirSync(path.join(project.cwd, 'assets'), { recursive: true }) as string[]).sort();

describe('provenance: sidecar', () => {
  it("writes one sidecar per output under .assetgen/provenance/ with the lock's record, job ids and credits as the ledger says, the images untouched", async () => {
    const first = await build();
    expect(first.code, first.stderr).toBe(0);
    const lock = lockOf();
    const files = outputs();
    expect(files.length).toBeGreaterThanOrEqual(5); // the workflow makes several
    const document = parseJson(first);
    expect(document.sidecars).toMatchObject({ place: 'folder', dir: '.assetgen/provenance', current: 0, removed: [], failed: [] });
    expect(document.sidecars.written).toEqual(files.map((file) => inFolder(file.path)).sort());
    // Nothing in the game's asset folders but the outputs themselves: no sidecar ships with them.
    expect(tree().filter((file) => file.endsWith('.assetgen.json'))).toEqual([]);
    const byKey = spendByKey(await project.ledger());
    const ledger = await project.ledger();
    for (const [id, entry] of Object.entries(lock.assets)) {
      for (const file of entry.files) {
        const record = sidecar(file.path);
        expect(record).toMatchObject({
          file: file.path,
          sha256: file.sha256,
          size: file.size,
          asset: id,
          kind: entry.kind,
          service: new URL(project.mock.url).host,
          generatedAt: entry.finishedAt,
          credits: entry.credits,
          digitalSourceType: DIGITAL_SOURCE_TYPE,
          generator: 'assetgen',
        });
        // What the lock says it cost is what the mock charged for its key (its call, polls, refunds).
        expect(record.credits).toBe(byKey.get(record.idempotencyKey!));
        // The bytes on disk are still the ones the lock recorded.
        expect((await hashFile(path.join(project.cwd, file.path)))?.sha256).toBe(file.sha256);
        expect(record.post).toBeUndefined();
      }
    }
    // Job ids: the lock's, and the mock charged exactly that job under the record's key.
    for (const id of ['hero', 'torch']) {
      const record = sidecar(lock.assets[id]!.files[0]!.path);
      expect(record.jobId).toBe(lock.assets[id]!.jobId);
      expect(record.jobId).toMatch(/^(run|vid)_/);
      const submitted = ledger.find((entry) => /^(?:run|video) (\S+)/.exec(entry.reason)?.[1] === record.jobId);
      expect(submitted?.idempotencyKey).toBe(record.idempotencyKey);
    }
    expect(sidecar('assets/icons/sword.png')).toMatchObject({ prompt: 'rusty sword icon', agent: 'icon-forge' });
    expect(sidecar('assets/icons/sword.png').jobId).toBeUndefined(); // images have none
    expect(sidecar(lock.assets.hero!.files[0]!.path)).toMatchObject({ workflow: 'wf_sprite_sheet', set: { character: 'a dwarf miner' } });
    expect(sidecar(lock.assets.torch!.files[0]!.path)).toMatchObject({ prompt: 'torch flickering on a wall', kind: 'video' });
  });

  it('a second build writes nothing; a missing sidecar comes back, free; an edited one is put right', async () => {
    expect((await build()).code).toBe(0);
    const charges = (await project.ledger()).length;
    const before = fs.readFileSync(path.join(project.cwd, inFolder('assets/icons/sword.png')));
    const again = await build();
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson(again).sidecars).toMatchObject({ written: [], current: outputs().length });

    fs.rmSync(path.join(project.cwd, inFolder('assets/icons/sword.png')));
    // An edited sidecar of assetgen's (its own generator and file) is put right; a stranger's file is not (below).
    const potionSidecar = path.join(project.cwd, inFolder('assets/potion.png'));
    fs.writeFileSync(potionSidecar, JSON.stringify({ ...JSON.parse(fs.readFileSync(potionSidecar, 'utf8')), credits: 0 }));
    const third = await build();
    expect(third.code, third.stderr).toBe(0);
    expect(parseJson(third).totals).toMatchObject({ built: 0, unchanged: 4 });
    expect(parseJson(third).sidecars.written).toEqual([inFolder('assets/icons/sword.png'), inFolder('assets/potion.png')]);
    expect(fs.readFileSync(path.join(project.cwd, inFolder('assets/icons/sword.png')))).toEqual(before);
    expect(sidecar('assets/potion.png').asset).toBe('potion');
    expect(await project.ledger()).toHaveLength(charges);
  });

  it('a sidecar carries the post steps that made the file, and the disclosure lists them', async () => {
    expect((await build()).code).toBe(0);
    // Post steps added to one asset: re-processed from its kept original (free), its sidecar says how.
    const withPost = WITH_SIDECARS.replace(
      '    out: assets/icons/sword.png\n',
      '    out: assets/icons/sword.png\n    post: [trim, { resize: { width: 32, height: 32, kernel: nearest } }]\n',
    );
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), withPost);
    const again = await build();
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson(again).sidecars.written).toEqual([inFolder('assets/icons/sword.png')]);
    expect(sidecar('assets/icons/sword.png').post).toMatchObject([
      { kind: 'trim' },
      { kind: 'resize', width: 32, height: 32, kernel: 'nearest' },
    ]);
    expect(sidecar('assets/potion.png').post).toBeUndefined();
    const markdown = await project.run(['report', '--disclosure']);
    expect(markdown.stdout).toContain('| trim, resize 32×32 contain nearest |');
  });

  it('people are told how many sidecars were written', async () => {
    const result = await project.run(['build', '--yes', 'sword']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Provenance: 1 sidecar written in .assetgen/provenance/, 0 already current.');
  });

  it("never replaces a file of the sidecar's name that assetgen did not write", async () => {
    const mine = path.join(project.cwd, inFolder('assets/icons/sword.png'));
    fs.mkdirSync(path.dirname(mine), { recursive: true });
    fs.writeFileSync(mine, '{"my": "notes"}');
    const result = await build(['sword']);
    expect(result.code).toBe(1);
    expect(jsonError(result)).toMatchObject({ code: 'provenance_failed' });
    expect(fs.readFileSync(mine, 'utf8')).toBe('{"my": "notes"}');
  });

  it('a sidecar that cannot be written fails the build (exit 1) after the build, which is recorded', async () => {
    fs.mkdirSync(path.join(project.cwd, inFolder('assets/icons/sword.png')), { recursive: true });
    const result = await build(['sword']);
    expect(result.code).toBe(1);
    expect(jsonError(result)).toMatchObject({ code: 'provenance_failed' });
    expect(result.stderr).toContain(inFolder('assets/icons/sword.png'));
    expect(lockOf().assets.sword?.files).toHaveLength(1);
  });

  it('a sidecar that cannot be written is reported when an asset failed too (even with --quiet): exit 1 for the failure', async () => {
    fs.mkdirSync(path.join(project.cwd, inFolder('assets/icons/sword.png')), { recursive: true });
    writeFiles(project.cwd, { 'assetgen.yaml': `${WITH_SIDECARS}  - { id: broken, prompt: a thing, agent: no-such-agent }\n` });
    const result = await project.run(['build', 'sword', 'broken', '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: 1 provenance sidecar could not be written: ${inFolder('assets/icons/sword.png')}.\nerror: 1 asset failed: broken.`,
    );
    const json = await project.run(['build', 'sword', 'broken', '--json']);
    expect(jsonError(json)).toMatchObject({ code: 'build_failed' });
    expect(parseJson(json).sidecars.failed).toEqual([{ path: inFolder('assets/icons/sword.png'), reason: expect.any(String) }]);
  });

  it("never writes through a link where a sidecar goes (the confinement rule): exit 1, the link's target untouched", async () => {
    const outside = path.join(project.home.home, 'outside.json');
    fs.writeFileSync(outside, 'not yours\n');
    fs.mkdirSync(path.join(project.cwd, '.assetgen/provenance/assets/icons'), { recursive: true });
    fs.symlinkSync(outside, path.join(project.cwd, inFolder('assets/icons/sword.png')));
    const result = await build(['sword']);
    expect(result.code).toBe(1);
    expect(jsonError(result)).toMatchObject({ code: 'provenance_failed' });
    expect(parseJson(result).sidecars.failed).toEqual([
      { path: inFolder('assets/icons/sword.png'), reason: expect.stringContaining('symbolic link') },
    ]);
    expect(fs.readFileSync(outside, 'utf8')).toBe('not yours\n');
  });

  it('--prune removes the sidecar of a pruned file', async () => {
    expect((await build()).code).toBe(0);
    writeFiles(project.cwd, { 'assetgen.yaml': WITH_SIDECARS.replace(/ {2}- id: potion\n {4}prompt: red potion\n/, '') });
    const pruned = await build(['--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(tree()).not.toContain('potion.png');
    expect(fs.existsSync(path.join(project.cwd, inFolder('assets/potion.png')))).toBe(false);
    expect(fs.existsSync(path.join(project.cwd, inFolder('assets/icons/sword.png')))).toBe(true);
  });

  it('without the setting, no sidecar is written', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': ASSETS });
    const result = await build();
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result).sidecars).toBeUndefined();
    expect(tree().filter((file) => file.endsWith('.assetgen.json'))).toEqual([]);
    expect(fs.existsSync(path.join(project.cwd, '.assetgen/provenance'))).toBe(false);
  });

  it('a value other than a place is a manifest error (exit 2, file:line:col)', async () => {
    const cases: [string, string][] = [
      ['provenance: embed', 'assetgen.yaml:1:13: provenance: must be `sidecar` (in .assetgen/provenance/), or'],
      ['provenance: { sidecars: nearby }', 'assetgen.yaml:1:25: provenance.sidecars: must be `folder` or `beside`'],
      ['provenance: { dir: meta }', 'assetgen.yaml:1:13: provenance.sidecars: missing'],
      ['provenance: { sidecars: beside, dir: meta }', 'assetgen.yaml:1:33: provenance.dir: goes with `sidecars: folder` only'],
      ['provenance: { sidecars: folder, dir: ../up }', 'provenance.dir: "../up" must be a folder inside the project'],
      ['provenance: { sidecars: folder, dir: . }', 'provenance.dir: "." must be a folder inside the project other than its root'],
      ['provenance: { sidecars: folder, dir: /abs }', 'provenance.dir: "/abs" must be a folder inside the project'],
    ];
    for (const [line, message] of cases) {
      writeFiles(project.cwd, { 'assetgen.yaml': `${line}\n${ASSETS}` });
      const result = await project.run(['build', '--yes']);
      expect(result.code, line).toBe(2);
      expect(result.stderr, line).toContain(message);
    }
    expect(await project.ledger()).toEqual([]);
  });
});

describe('provenance: where the sidecars go', () => {
  const besideOf = (file: string): string => `${file}.assetgen.json`;
  const withPlace = (place: string) => `provenance: ${place}\n${ASSETS}`;

  it('{sidecars: beside} writes each beside its output, and the summary says so', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': withPlace('{ sidecars: beside }') });
    const result = await build(['sword', 'potion']);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result).sidecars).toEqual({
      place: 'beside',
      written: [besideOf('assets/icons/sword.png'), besideOf('assets/potion.png')],
      current: 0,
      removed: [],
      failed: [],
    });
    expect(sidecar('assets/icons/sword.png', besideOf('assets/icons/sword.png'))).toMatchObject({
      asset: 'sword',
      file: 'assets/icons/sword.png',
    });
    expect(fs.existsSync(path.join(project.cwd, '.assetgen/provenance'))).toBe(false);
    const people = await project.run(['build', '--yes', 'sword']);
    expect(people.stderr).toContain('Provenance: 0 sidecars written beside the outputs, 1 already current.');
  });

  it('{sidecars: folder, dir} mirrors the outputs under that folder', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': withPlace('{ sidecars: folder, dir: meta/provenance/ }') });
    const result = await build(['sword']);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result).sidecars).toMatchObject({
      place: 'folder',
      dir: 'meta/provenance',
      written: ['meta/provenance/assets/icons/sword.png.assetgen.json'],
    });
    expect(sidecar('assets/icons/sword.png', 'meta/provenance/assets/icons/sword.png.assetgen.json').asset).toBe('sword');
    expect(tree().filter((file) => file.endsWith('.assetgen.json'))).toEqual([]);
  });

  it("a manifest that moves them from beside to the folder (provenance: sidecar, once beside) moves assetgen's own, free; a user's file stays", async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': withPlace('{ sidecars: beside }') });
    expect((await build()).code).toBe(0);
    const files = outputs().map((file) => file.path);
    const charges = (await project.ledger()).length;
    // A file of the user's where a sidecar would be beside an output: not assetgen's, never removed.
    fs.writeFileSync(path.join(project.cwd, besideOf('assets/potion.png')), '{"my": "notes"}');

    writeFiles(project.cwd, { 'assetgen.yaml': WITH_SIDECARS });
    const moved = await build();
    expect(moved.code, moved.stderr).toBe(0);
    const document = parseJson(moved);
    expect(document.sidecars.written).toEqual(files.map(inFolder).sort());
    expect(document.sidecars.removed).toEqual(
      files
        .filter((file) => file !== 'assets/potion.png')
        .map(besideOf)
        .sort(),
    );
    expect(tree().filter((file) => file.endsWith('.assetgen.json'))).toEqual(['potion.png.assetgen.json']);
    expect(fs.readFileSync(path.join(project.cwd, besideOf('assets/potion.png')), 'utf8')).toBe('{"my": "notes"}');
    for (const file of files) expect(sidecar(file).file).toBe(file);
    expect(await project.ledger()).toHaveLength(charges);

    // And back: beside again, those in the folder go.
    fs.rmSync(path.join(project.cwd, besideOf('assets/potion.png')));
    writeFiles(project.cwd, { 'assetgen.yaml': withPlace('{ sidecars: beside }') });
    const back = await project.run(['build', '--yes']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toContain(
      `Provenance: ${files.length} sidecars written beside the outputs, 0 already current (${files.length} moved from .assetgen/provenance/).`,
    );
    expect(
      fs.readdirSync(path.join(project.cwd, '.assetgen/provenance'), { recursive: true }).filter((file) => String(file).endsWith('.json')),
    ).toEqual([]);
  });
});

describe('assetgen report --disclosure', () => {
  it('lists every output with its record (--json), from the lock alone, and as Markdown', async () => {
    expect((await build()).code).toBe(0);
    const lock = lockOf();
    fs.writeFileSync(path.join(project.cwd, 'assets/potion.png'), 'edited by hand');
    // No service configured: the lock says where each asset was made.
    const json = await project.run(['report', '--disclosure', '--json'], { env: project.home.env });
    expect(json.code, json.stderr).toBe(0);
    const disclosure = parseJson(json) as Disclosure;
    expect(disclosure.files.map((file) => file.file).sort()).toEqual(
      outputs()
        .map((file) => file.path)
        .sort(),
    );
    expect(disclosure.totals).toMatchObject({ files: outputs().length, assets: 4, edited: 1 });
    expect(disclosure.totals.credits).toBe(Object.values(lock.assets).reduce((sum, entry) => sum + (entry.credits ?? 0), 0));
    for (const file of disclosure.files) {
      const entry = lock.assets[file.asset]!;
      expect(file).toMatchObject({
        service: new URL(project.mock.url).host,
        digitalSourceType: DIGITAL_SOURCE_TYPE,
        credits: entry.credits,
      });
      expect(file.jobId).toBe(entry.jobId);
      expect(file.state).toBe(file.asset === 'potion' ? 'edited' : 'as generated');
    }
    expect(disclosure.files.find((file) => file.asset === 'sword')?.prompt).toBe('rusty sword icon');

    const markdown = await project.run(['report', '--disclosure'], { env: project.home.env });
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^# AI-generated files\n/);
    expect(markdown.stdout).toContain(`${outputs().length} files of assetgen.yaml were generated by an AI service`);
    for (const file of outputs()) expect(markdown.stdout).toContain(`| \`${file.path}\``);
    expect(markdown.stdout).toContain('| `assets/potion.png` (edited since) | potion |');
    expect(markdown.stdout).toContain(`\`${lock.assets.hero!.jobId}\``);
  });

  it('a changed prompt is not shown as the one the file was made from; a missing file is named, not listed', async () => {
    expect((await build()).code).toBe(0);
    writeFiles(project.cwd, { 'assetgen.yaml': WITH_SIDECARS.replace('rusty sword icon', 'shiny sword icon') });
    fs.rmSync(path.join(project.cwd, 'assets/potion.png'));
    const disclosure = parseJson(await project.run(['report', '--disclosure', '--json'])) as Disclosure;
    expect(disclosure.files.find((file) => file.asset === 'sword')?.prompt).toBeUndefined();
    expect(disclosure.missing).toEqual(['assets/potion.png']);
    expect(disclosure.files.some((file) => file.asset === 'potion')).toBe(false);
  });

  it('refuses -o, whatever its file (it prints to stdout): exit 2, saying what it takes', async () => {
    for (const output of ['x.html', 'x.md']) {
      const result = await project.run(['report', '--disclosure', '-o', output]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--disclosure takes no -o: it prints to stdout (Markdown; --json: one document)');
      expect(result.stderr).toContain('assetgen report --disclosure > DISCLOSURE.md');
      expect(result.stderr).not.toContain('Name an .html file');
    }
  });
});
