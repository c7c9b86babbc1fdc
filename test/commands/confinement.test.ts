// The confinement rule (src/files/confine.ts) against the real mock: symlinks in `out` and in an
// output folder, dangling links, control characters, one file for two assets, prune and
// `-o` through links. Each refusal comes before paying (the mock's ledger stays empty) and leaves
// a sentinel folder beside the project untouched.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 1000 }, config: {} });
const { run } = project;

/** The sentinel: a folder beside the project, with one file in it; nothing may change there. */
function sentinel(): { dir: string; unchanged: () => void } {
  const dir = path.join(project.home.home, 'outside');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'keep.txt'), 'keep');
  const snapshot = (): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
  const before = snapshot();
  return { dir, unchanged: () => expect(snapshot()).toEqual(before) };
}

const manifest = (text: string): void => fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), text);
const link = (target: string, at: string): void => {
  fs.mkdirSync(path.dirname(path.join(project.cwd, at)), { recursive: true });
  fs.symlinkSync(target, path.join(project.cwd, at));
};

describe('a build that would write or delete outside the project', () => {
  it('a symlinked folder in out: exit 2, nothing charged, nothing written outside', async () => {
    const outside = sentinel();
    link('../outside', 'assets');
    manifest('assets:\n  - id: x\n    prompt: a sword\n    agent: sprite-artist\n    out: assets/x.png\n');
    const result = await run(['build']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/assets\/x\.png leads outside .* through the symbolic link assets \(→ \.\.\/outside\)/);
    expect(await project.ledger()).toEqual([]);
    outside.unchanged();
    expect(fs.existsSync(path.join(project.cwd, 'assetgen.lock'))).toBe(false);
  });

  it('a link where an output goes in an existing folder: exit 2, before paying', async () => {
    const outside = sentinel();
    fs.writeFileSync(path.join(outside.dir, 'hero.png'), 'not ours');
    const snapshot = sentinel();
    link(path.join(outside.dir, 'hero.png'), 'assets/hero.png');
    manifest('assets:\n  - id: hero\n    prompt: a hero\n    agent: sprite-artist\n    out: assets/\n');
    const result = await run(['build', '--force']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('assets/hero.png is a symbolic link');
    expect(await project.ledger()).toEqual([]);
    snapshot.unchanged();
    expect(fs.readFileSync(path.join(outside.dir, 'hero.png'), 'utf8')).toBe('not ours');
  });

  it('a dangling link as the output file, or as its folder: exit 2, nothing charged (build and generate)', async () => {
    const outside = sentinel();
    link('/nonexistent/zz.png', 'dang.png');
    link('/nonexistent/dir', 'gone');
    for (const out of ['dang.png', 'gone/x.png']) {
      manifest(`assets:\n  - id: x\n    prompt: a sword\n    agent: sprite-artist\n    out: ${out}\n`);
      const built = await run(['build', '--force']);
      expect(built.code, `${out}: ${built.stderr}`).toBe(2);
      const generated = await run(['generate', 'a sword', '-a', 'sprite-artist', '-o', out, '--force', '--json']);
      expect(generated.code, generated.stderr).toBe(2);
      expect(jsonError(generated).code).toBe('usage');
    }
    const message = (await run(['generate', 'a sword', '-a', 'sprite-artist', '-o', 'gone/x.png'])).stderr;
    expect(message).toMatch(/symbolic link to a place that does not exist \(\/nonexistent\/dir\)/);
    expect(await project.ledger()).toEqual([]);
    outside.unchanged();
  });

  it("a folder where a file out (or a sheet's data file) goes: exit 2 before paying, as generate -o", async () => {
    fs.mkdirSync(path.join(project.cwd, 'taken.png'));
    fs.mkdirSync(path.join(project.cwd, 'atlas.json'));
    for (const text of [
      'assets:\n  - { id: x, prompt: a sword, agent: sprite-artist, out: taken.png }\n',
      'assets:\n  - { id: x, prompt: a sword, agent: sprite-artist, out: x.png }\n  - { id: s, sheet: { from: [x] }, out: atlas.png }\n',
    ]) {
      manifest(text);
      const built = await run(['build', '--force']);
      expect(built.code, built.stderr).toBe(2);
      expect(built.stderr).toMatch(/(taken\.png|atlas\.json) is not a regular file/);
    }
    expect(await project.ledger()).toEqual([]);
  });

  it('NUL and other control characters in out or -o are usage errors before paying', async () => {
    manifest('assets:\n  - id: x\n    prompt: a sword\n    agent: sprite-artist\n    out: "a\\0b.png"\n');
    const built = await run(['build']);
    expect(built.code, built.stderr).toBe(2);
    expect(built.stderr).toMatch(/assetgen\.yaml:5:.*control character/);
    for (const output of ['a\0b.png', 'a\nb.png', 'dir\u0007/']) {
      const result = await run(['generate', 'a sword', '-a', 'sprite-artist', '-o', output]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('control character');
      expect(result.stderr).not.toMatch(/TypeError|This is a bug/);
    }
    expect(await project.ledger()).toEqual([]);
    expect(fs.readdirSync(project.cwd).sort()).toEqual(['assetgen.yaml']);
  });

  it('--prune through a folder swapped for a link: exit 2, the outside copy stays', async () => {
    manifest('assets:\n  - id: sword\n    prompt: a sword\n    agent: sprite-artist\n    out: assets/sword.png\n');
    expect((await run(['build'])).code).toBe(0);
    const outside = sentinel();
    fs.cpSync(path.join(project.cwd, 'assets'), outside.dir, { recursive: true });
    const snapshot = sentinel();
    fs.rmSync(path.join(project.cwd, 'assets'), { recursive: true });
    link('../outside', 'assets');
    manifest('assets: []\n');
    const charged = (await project.ledger()).length;
    const result = await run(['build', '--prune']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/assets\/sword\.png leads outside/);
    snapshot.unchanged();
    expect(fs.existsSync(path.join(outside.dir, 'sword.png'))).toBe(true);
    expect((await project.ledger()).length).toBe(charged);
  });

  it('a link inside the project that stays inside is followed', async () => {
    fs.mkdirSync(path.join(project.cwd, 'art'));
    link('art', 'assets');
    manifest('assets:\n  - id: sword\n    prompt: a sword\n    agent: sprite-artist\n    out: assets/sword.png\n');
    const result = await run(['build']);
    expect(result.code, result.stderr).toBe(0);
    expect(fs.existsSync(path.join(project.cwd, 'art', 'sword.png'))).toBe(true);
  });
});

describe('one file, one owner', () => {
  const COLLIDING =
    'assets:\n  - id: hero-idle\n    prompt: a hero standing\n    agent: sprite-artist\n    out: assets/\n' +
    '  - id: hero\n    workflow: wf_sprite_sheet\n    out: assets/\n';

  it('an image and a workflow node that save the same file: exit 2, both named, no paid call', async () => {
    manifest(COLLIDING);
    const result = await run(['build']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('"hero" and "hero-idle" can both write assets/hero-idle.*');
    // Knowing the node ids took the service's workflows list (1 credit on the mock for a key); nothing was generated.
    expect((await project.ledger()).map((entry) => entry.reason)).toEqual(['list workflows']);
    expect(fs.existsSync(path.join(project.cwd, 'assets'))).toBe(false);
  });

  it('known from the lock, the same collision is refused without asking the service', async () => {
    manifest('assets:\n  - id: hero\n    workflow: wf_sprite_sheet\n    out: assets/\n');
    expect((await run(['build'])).code).toBe(0);
    const idle = fs.readFileSync(path.join(project.cwd, 'assets', 'hero-idle.png'));
    const charged = (await project.ledger()).length;
    manifest(COLLIDING);
    for (const args of [['build'], ['build', '--force'], ['build', '--dry-run']]) {
      const result = await run(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('"hero" and "hero-idle" can both write assets/hero-idle.*');
      expect(result.stderr).toContain('"hero-idle" would write over assets/hero-idle.png, which assetgen.lock gives to "hero"');
    }
    expect((await project.ledger()).length).toBe(charged);
    expect(fs.readFileSync(path.join(project.cwd, 'assets', 'hero-idle.png'))).toEqual(idle);
  });
});

describe('-o of the single commands', () => {
  it('a file without an extension gets the one its bytes show', async () => {
    const result = await run(['generate', 'a sword', '-a', 'sprite-artist', '-o', 'assets/items']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(path.join(project.cwd, 'assets', 'items.png'));
    expect(result.stderr).toContain('saving it as assets/items.png');
    expect(fs.readdirSync(path.join(project.cwd, 'assets'))).toEqual(['items.png']);
  });

  it('an extension that is not a media type is a usage error before paying', async () => {
    const result = await run(['generate', 'a sword', '-a', 'sprite-artist', '-o', 'notes.svg']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('.svg is not a media type assetgen saves');
    expect(await project.ledger()).toEqual([]);
  });

  it('a link the user names on purpose is followed; a link where the file goes is never written through', async () => {
    const outside = sentinel();
    link('../outside', 'shared');
    const named = await run(['generate', 'a sword', '-a', 'sprite-artist', '-o', 'shared/sword.png']);
    expect(named.code, named.stderr).toBe(0);
    expect(fs.existsSync(path.join(outside.dir, 'sword.png'))).toBe(true);
    link(path.join(outside.dir, 'keep.txt'), 'keep.png');
    const before = (await project.ledger()).length;
    const through = await run(['generate', 'a sword', '-a', 'sprite-artist', '-o', 'keep.png', '--force']);
    expect(through.code, through.stderr).toBe(2);
    expect(through.stderr).toContain('is a symbolic link; assetgen never writes through a link');
    expect(fs.readFileSync(path.join(outside.dir, 'keep.txt'), 'utf8')).toBe('keep');
    expect((await project.ledger()).length).toBe(before);
  });
});

describe("a sheet's data file and a kept original: checked like the output before paying", () => {
  const SHEET =
    'defaults: { agent: sprite-artist, out: assets/ }\nassets:\n  - { id: sword, prompt: a sword }\n' +
    '  - id: icons\n    sheet: { from: [sword] }\n    out: sheets/icons.png\n';
  const POST = 'assets:\n  - { id: sword, prompt: a sword, agent: sprite-artist, out: assets/, post: [pot] }\n';

  it("a link at the sheet's .json (dangling, or to a file outside with --force): exit 2, nothing charged, nothing written", async () => {
    const outside = sentinel();
    fs.writeFileSync(path.join(outside.dir, 'icons.json'), 'not ours');
    const snapshot = sentinel();
    manifest(SHEET);
    for (const [target, args] of [
      [path.join(outside.dir, 'gone.json'), ['build']],
      [path.join(outside.dir, 'icons.json'), ['build', '--force']],
    ] as const) {
      fs.rmSync(path.join(project.cwd, 'sheets'), { recursive: true, force: true });
      link(target, 'sheets/icons.json');
      const result = await run([...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('sheets/icons.json is a symbolic link; assetgen never writes through a link');
      expect(await project.ledger()).toEqual([]);
      expect(fs.readdirSync(path.join(project.cwd, 'sheets'))).toEqual(['icons.json']);
    }
    snapshot.unchanged();
    expect(fs.readFileSync(path.join(outside.dir, 'icons.json'), 'utf8')).toBe('not ours');
  });

  it('a link where the kept original goes: exit 2 before paying, for a new asset and for a re-process', async () => {
    const outside = sentinel();
    manifest(POST);
    link(path.join(outside.dir, 'sword.png'), '.assetgen/originals/sword/sword.png');
    const first = await run(['build']);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toContain('.assetgen/originals/sword/sword.png is a symbolic link');
    expect(await project.ledger()).toEqual([]);
    outside.unchanged();

    // Built without post (no original kept), then post added: the output would be kept as the original.
    fs.rmSync(path.join(project.cwd, '.assetgen'), { recursive: true });
    manifest(POST.replace(', post: [pot]', ''));
    expect((await run(['build'])).code).toBe(0);
    const charged = (await project.ledger()).length;
    link(path.join(outside.dir, 'sword.png'), '.assetgen/originals/sword/sword.png');
    manifest(POST);
    const again = await run(['build']);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('.assetgen/originals/sword/sword.png is a symbolic link');
    expect((await project.ledger()).length).toBe(charged);
    outside.unchanged();
  });
});

describe("the lock's own files (the lock, its journal, the claim and its draft): by the same rule, before paying", () => {
  const SWORD = 'assets:\n  - { id: sword, prompt: a sword, agent: sprite-artist, out: assets/ }\n';

  it.each([
    ['the journal', '.assetgen.lock.journal'],
    ['the claim', '.assetgen.lock.writer'],
    ['the lock', 'assetgen.lock'],
  ])('a dangling link at %s: exit 2, nothing created outside, nothing charged, no claim left', async (_name, file) => {
    const outside = sentinel();
    manifest(SWORD);
    link(path.join(outside.dir, 'written-through.txt'), file);
    const result = await run(['build']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${file} is a symbolic link`);
    expect(result.stderr).not.toMatch(/This is a bug|\n\s+at /);
    expect(await project.ledger()).toEqual([]);
    outside.unchanged();
    expect(fs.readdirSync(project.cwd).sort()).toEqual([file, 'assetgen.yaml'].sort());
  });

  it("a link to a file outside at the journal, with --lock-out's own journal too: the file outside is never written", async () => {
    const outside = sentinel();
    manifest(SWORD);
    fs.mkdirSync(path.join(project.cwd, 'shards'));
    link(path.join(outside.dir, 'keep.txt'), 'shards/.shard-1.lock.journal');
    const result = await run(['build', '--lock-out', 'shards/shard-1.lock']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('.shard-1.lock.journal is a symbolic link');
    expect(fs.readFileSync(path.join(outside.dir, 'keep.txt'), 'utf8')).toBe('keep');
    expect(await project.ledger()).toEqual([]);
    outside.unchanged();
  });

  it("the claim's draft has a fresh name of its own, never a link's: a link at the old name (`.assetgen.lock.writer.<pid>.tmp`) is not followed", async () => {
    const outside = sentinel();
    manifest(SWORD);
    // An in-process run: this process's pid is the one the draft's name used to carry.
    link(path.join(outside.dir, 'draft.txt'), `.assetgen.lock.writer.${process.pid}.tmp`);
    const result = await run(['build']);
    expect(result.code, result.stderr).toBe(0);
    outside.unchanged();
    // Nothing of the build's own is left beside the lock: no claim, no draft, no journal (.assetgen holds the plan cache).
    expect(fs.readdirSync(project.cwd).sort()).toEqual([
      '.assetgen',
      `.assetgen.lock.writer.${process.pid}.tmp`,
      'assetgen.lock',
      'assetgen.yaml',
      'assets',
    ]);
  });
});
