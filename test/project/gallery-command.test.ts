// The gallery from the real CLI (in-process) against the real mock: `build --report` after a build
// (new, then unchanged; failed; skipped at the cap), `assetgen report` from the lock alone (with and
// without a service), `build --dry-run --report`, and a report that cannot be written never hiding
// the build's own outcome.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mediaInfo } from '../../src/files/media-info.js';
import { readLock } from '../../src/pipeline/lock.js';
import { jsonError, parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { whilePaying, writeFiles } from './helpers.js';

const GALLERY_MANIFEST = fs.readFileSync(new URL('./fixtures/gallery.yaml', import.meta.url), 'utf8');

const project = useMockProject({
  mock: { credits: 100_000 },
  config: { credits: 100_000, videoPollAfterMs: 20, videoSteps: 1, faults: { rate: 0 } },
  files: { 'assetgen.yaml': GALLERY_MANIFEST },
});
const { run } = project;

interface Card {
  id: string;
  status: string;
  html: string;
}
/** The cards of a gallery file, in order. */
function cards(file: string): Card[] {
  const html = fs.readFileSync(path.resolve(project.cwd, file), 'utf8');
  return [...html.matchAll(/<article class="card s-(\w+)" data-id="([^"]*)" data-status="\w+">([\s\S]*?)<\/article>/g)].map((m) => ({
    status: m[1]!,
    id: m[2]!,
    html: m[3]!,
  }));
}
const statuses = (file: string) => Object.fromEntries(cards(file).map((card) => [card.id, card.status]));
const card = (file: string, id: string) => cards(file).find((c) => c.id === id)!;

describe('assetgen build --report', () => {
  it('writes the gallery after a build (every asset new, its files embedded), and a second build says unchanged', async () => {
    const first = await run(['build', '--mock', '--yes', '--report', 'out/r.html', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const report = path.join(project.cwd, 'out', 'r.html');
    expect(parseJson(first).report).toBe(report);
    expect(first.stderr).toContain('Report: out/r.html (4 assets: 4 new; 215 credits charged by this build).');
    expect(statuses(report)).toEqual({ sword: 'new', shield: 'new', hero: 'new', torch: 'new' });
    const lock = readLock(path.join(project.cwd, 'assetgen.lock'));
    const files = Object.values(lock.assets).flatMap((entry) => entry.files);
    const html = fs.readFileSync(report, 'utf8');
    expect(html.match(/<img src="data:image\/(png|gif);base64,/g)).toHaveLength(files.length);
    expect(card(report, 'torch').html).toContain('<img src="data:image/gif;base64,');
    expect(card(report, 'hero').html).toContain('<dt>workflow</dt><dd><code>wf_sprite_sheet</code></dd>');
    expect(card(report, 'sword').html).toContain('<p class="prompt">rusty sword icon</p>');
    expect(card(report, 'sword').html).toContain('<dt>credits</dt><dd>10 <small>this build</small></dd>');

    const again = await run(['build', '--mock', '--report', 'out/r.html']);
    expect(again.code, again.stderr).toBe(0);
    expect(statuses(report)).toEqual({ sword: 'unchanged', shield: 'unchanged', hero: 'unchanged', torch: 'unchanged' });
    expect(card(report, 'torch').html).toContain('<dt>credits</dt><dd>180 <small>when built</small></dd>');
    expect(fs.readFileSync(report, 'utf8')).toContain('<span class="n">0</span> credits charged by this build');
  });

  it("shows each image's pixel size (as its header says), in the page and --json, and the post steps the lock records", async () => {
    const first = await run(['build', '--mock', '--yes', '--report', 'r.html', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const lockFile = path.join(project.cwd, 'assetgen.lock');
    const lock = readLock(lockFile);
    const sword = lock.assets.sword!.files[0]!.path;
    const { width, height } = mediaInfo(path.join(project.cwd, sword));
    expect(width).toBeGreaterThan(0);
    expect(card('r.html', 'sword').html).toContain(`<span class="dims">${width}×${height} px</span>`);
    // Every image's size is on its card (the mock's video is an animated GIF: an image too).
    const files = Object.values(lock.assets).flatMap((entry) => entry.files);
    expect(fs.readFileSync(path.join(project.cwd, 'r.html'), 'utf8').match(/class="dims"/g)).toHaveLength(files.length);

    // Post steps added to one asset (re-processed from its kept original, free): on its card and nowhere else.
    const withPost = GALLERY_MANIFEST.replace(
      '    out: assets/icons/sword.png\n',
      '    out: assets/icons/sword.png\n    post: [trim, { resize: { width: 32, height: 32, kernel: nearest } }]\n',
    );
    expect(withPost).not.toBe(GALLERY_MANIFEST);
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), withPost);
    expect((await run(['build', '--mock', '--yes'])).code).toBe(0);
    const report = await run(['report', '--mock', '-o', 'lock.html', '--json']);
    expect(report.code, report.stderr).toBe(0);
    expect(card('lock.html', 'sword').html).toContain('<dt>post</dt><dd class="post">trim → resize 32×32 contain nearest</dd>');
    expect(card('lock.html', 'shield').html).not.toContain('<dt>post</dt>');
    const item = (parseJson(report).items as { id: string; post?: string[]; files: { width?: number }[] }[]).find((i) => i.id === 'sword');
    expect(item).toMatchObject({ post: ['trim', 'resize 32×32 contain nearest'] });
    expect(item!.files[0]).toMatchObject({ path: sword, width: 32, height: 32 });
  });

  it('shows a failed asset as failed, and the rest as built, with exit 1 as without --report', async () => {
    await project.mock.config({ videoOutcome: 'fail' });
    const result = await run(['build', '--yes', '--report', 'r.html', '--json']);
    expect(result.code, result.stderr).toBe(1);
    expect(parseJson(result).report).toBe(path.join(project.cwd, 'r.html'));
    expect(jsonError(result)).toMatchObject({ code: 'build_failed' });
    expect(statuses('r.html')).toEqual({ sword: 'new', shield: 'new', hero: 'new', torch: 'failed' });
    expect(card('r.html', 'torch').html).toMatch(/<p class="reason">[^<]*fail/i);
    expect(card('r.html', 'torch').html).toContain('<span>no file yet</span>');
  });

  it('shows what --max-credits held back as skipped, with its reason, and still exits 8', async () => {
    expect((await run(['build', 'sword', 'shield'])).code).toBe(0); // their prices are now known
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), GALLERY_MANIFEST.replace('rusty sword icon', 'steel sword icon'));
    const result = await run(['build', '--yes', '--max-credits', '25', '-j', '1', '--report', 'r.html']);
    expect(result.code, result.stderr).toBe(8);
    expect(statuses('r.html')).toEqual({ sword: 'new', shield: 'unchanged', hero: 'skipped', torch: 'skipped' });
    expect(card('r.html', 'torch').html).toMatch(/<p class="reason">would pass --max-credits 25/);
    expect(card('r.html', 'hero').html).toMatch(/<p class="reason">its price is unknown/);
    expect(result.stderr.indexOf('Report: r.html')).toBeLessThan(result.stderr.indexOf('error: Held at --max-credits 25'));
  });

  it('a report path that cannot be written is refused before anything is charged, as a saved -o file is', async () => {
    writeFiles(project.cwd, { blocked: 'a file where the report wants a folder' });
    fs.symlinkSync(path.join(project.home.home, 'elsewhere.html'), path.join(project.cwd, 'linked.html'));
    for (const [report, code, error] of [
      ['blocked/r.html', 1, 'local_file'],
      ['linked.html', 2, 'usage'],
    ] as const) {
      const refused = await run(['build', 'sword', '--report', report, '--json']);
      expect(refused.code, report).toBe(code);
      expect(jsonError(refused).code, report).toBe(error);
    }
    expect((await project.mock.state()).ledger).toEqual([]);
    expect(fs.existsSync(path.join(project.home.home, 'elsewhere.html'))).toBe(false);
  });

  it('a report that cannot be written once the build ran fails after it (exit 1), never hiding its outcome or its lock', async () => {
    // The way is clear when the build is checked; a file takes the report's folder while it pays.
    const block = () => writeFiles(project.cwd, { blocked: 'a file where the report wants a folder' });
    const ok = await whilePaying(
      project.mock,
      project.cwd,
      'sword',
      () => run(['build', 'sword', '-j', '1', '--report', 'blocked/r.html', '--json']),
      block,
    );
    expect(ok.code).toBe(1);
    const document = parseJson(ok);
    expect(document.totals).toMatchObject({ built: 1 });
    expect(document.reportError).toMatch(/^Could not write the report blocked\/r\.html: /);
    expect(jsonError(ok)).toMatchObject({ code: 'report_failed', exitCode: 1 });
    expect(readLock(path.join(project.cwd, 'assetgen.lock')).assets.sword?.files).toHaveLength(1);
  });

  it('refuses a report path that is not an .html file before anything is charged (exit 2)', async () => {
    for (const args of [
      ['build', '--yes', '--report', 'assetgen.lock'],
      ['report', '-o', 'notes.txt'],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Name an .html file');
    }
    expect((await project.mock.state()).ledger).toEqual([]);
  });
});

describe('assetgen report', () => {
  it('writes the gallery from the manifest and the lock alone: no call, no credentials', async () => {
    expect((await run(['build', '--yes'])).code).toBe(0);
    const before = await project.mock.state();
    const result = await run(['report', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = parseJson(result);
    const report = path.join(project.cwd, 'assetgen-report.html');
    const recorded = Object.values(readLock(path.join(project.cwd, 'assetgen.lock')).assets).reduce((sum, e) => sum + (e.credits ?? 0), 0);
    expect(document).toMatchObject({
      report,
      service: project.mock.url.replace(/^http:\/\//, ''),
      totals: { assets: 4, unchanged: 4, credits: recorded },
    });
    expect(document.items.map((item: { id: string; status: string }) => `${item.id}:${item.status}`)).toEqual([
      'sword:unchanged',
      'shield:unchanged',
      'hero:unchanged',
      'torch:unchanged',
    ]);
    expect(statuses(report)).toEqual({ sword: 'unchanged', shield: 'unchanged', hero: 'unchanged', torch: 'unchanged' });
    expect((await project.mock.state()).ledger).toEqual(before.ledger);

    // What a build would do next, from the plan: a changed prompt, a file gone, an edit by hand.
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), GALLERY_MANIFEST.replace('wooden shield', 'iron shield'));
    fs.rmSync(path.join(project.cwd, 'assets', 'fx', 'torch.gif'));
    fs.appendFileSync(path.join(project.cwd, 'assets', 'icons', 'sword.png'), 'retouched');
    const later = await run(['report', '-o', 'site/g.html']);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout.trim()).toBe(path.join(project.cwd, 'site', 'g.html'));
    expect(statuses('site/g.html')).toEqual({ sword: 'unchanged', shield: 'skipped', hero: 'unchanged', torch: 'skipped' });
    expect(card('site/g.html', 'sword').html).toContain('edited by hand since assetgen wrote it');
    expect(card('site/g.html', 'shield').html).toMatch(
      /spec changed [^<]*: the next build makes it again — shown: the output of an earlier build/,
    );
    expect(card('site/g.html', 'torch').html).toContain('aria-label="missing"');
  });

  it('without a service judges by the files alone and says so; gone assets are counted, not shown', async () => {
    expect((await run(['build', '--yes'])).code).toBe(0);
    fs.writeFileSync(
      path.join(project.cwd, 'assetgen.yaml'),
      GALLERY_MANIFEST.replace('wooden shield', 'iron shield').replace(/ {2}- id: hero\n(?: {4}.*\n)+/, ''),
    );
    const result = await run(['report', '--json'], { env: project.home.env });
    expect(result.code, result.stderr).toBe(0);
    const document = parseJson(result);
    expect(document.service).toBeNull();
    expect(document.totals).toMatchObject({ assets: 3, unchanged: 3 });
    const html = fs.readFileSync(document.report as string, 'utf8');
    expect(html).toContain('No service is configured, so specs were not compared');
    expect(html).toContain('1 asset gone from the manifest (pruned, or left in the lock) not shown.');
    // With the service, the changed prompt shows.
    expect(statuses(parseJson(await run(['report', '--json'])).report as string).shield).toBe('skipped');
  });

  it('build --dry-run --report writes the plan as a gallery; a project with nothing built shows every asset not built yet', async () => {
    const result = await run(['build', '--dry-run', '--report', 'plan.html', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result).report).toBe(path.join(project.cwd, 'plan.html'));
    expect(statuses('plan.html')).toEqual({ sword: 'skipped', shield: 'skipped', hero: 'skipped', torch: 'skipped' });
    expect(card('plan.html', 'hero').html).toContain('<p class="reason">not built yet</p>');
    expect(fs.readFileSync(path.join(project.cwd, 'plan.html'), 'utf8')).not.toContain('<img');
    expect((await project.mock.state()).ledger).toEqual([]);
    const none = await run(['report'], { env: project.home.env, cwd: project.home.home });
    expect(none.code).toBe(2);
  });
});
