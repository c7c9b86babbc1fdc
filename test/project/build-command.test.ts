// `assetgen build --dry-run` in-process: the plan and its estimate from real files, against a real
// mock that must see no paid call; manifest errors exit 2 before anything is sent.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFiles, serviceId, specHash } from '../../src/pipeline/hash.js';
import { LockWriter } from '../../src/pipeline/writer.js';
import { parseManifest } from '../../src/pipeline/manifest.js';
import { jsonError, parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { EXAMPLE, writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 1000 }, files: { 'assetgen.yaml': EXAMPLE } });
const { run } = project;

/** Builds `sword` as the build loop would record it (on this mock's service). */
async function buildSword(credits: number): Promise<void> {
  const manifest = parseManifest(EXAMPLE, { file: path.join(project.cwd, 'assetgen.yaml') });
  const sword = manifest.assets[0]!;
  const writer = LockWriter.open(path.join(project.cwd, 'assetgen.lock'));
  await writer.submitted('sword', {
    spec: specHash(sword, serviceId(project.mock.url)),
    kind: 'image',
    agent: sword.agent,
    idempotencyKey: 'k',
  });
  writeFiles(project.cwd, { 'assets/icons/sword.png': 'PNG bytes' });
  await writer.finished('sword', { files: await describeFiles(project.cwd, ['assets/icons/sword.png']), credits });
  await writer.close();
}

describe('assetgen build --dry-run', () => {
  it('prints the plan and the estimate, and calls nothing', async () => {
    await buildSword(4);
    const before = await project.mock.state();
    const result = await run(['build', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'sword\tup-to-date\tnone\timage\t\tassets/icons/sword.png\t',
      'hero\tnew\tgenerate\tworkflow\t?\tassets/sprites/hero/\tnot built yet',
      'torch\tnew\tgenerate\tvideo\t180\tassets/fx/\tnot built yet',
    ]);
    expect(result.stderr).toContain(
      'Dry run, nothing sent: 2 to generate, 0 to resume, 1 up to date. Estimated cost: 180 credits + unknown for hero',
    );
    const after = await project.mock.state();
    expect(after.credits).toBe(before.credits);
    expect(after.ledger).toEqual(before.ledger);
  });

  it('--json: one document with items, counts and the estimate; edits are kept unless --force', async () => {
    await buildSword(4);
    fs.writeFileSync(path.join(project.cwd, 'assets/icons/sword.png'), 'retouched');
    const doc = parseJson(await run(['build', '--dry-run', '--json']));
    expect(doc).toMatchObject({
      dryRun: true,
      service: serviceId(project.mock.url),
      counts: { edited: 1, new: 2 },
      estimate: { credits: 180, unknown: ['hero'] },
    });
    expect(doc.items[0]).toMatchObject({
      id: 'sword',
      status: 'edited',
      action: 'keep',
      out: 'assets/icons/sword.png',
      files: [{ state: 'edited' }],
    });
    expect(doc.items[0].asset).toBeUndefined();
    const forced = parseJson(await run(['build', '--dry-run', '--json', '--force']));
    expect(forced.items[0]).toMatchObject({ action: 'generate', estimate: 4 });
    expect(forced.estimate).toEqual({ credits: 184, unknown: ['hero'] });
  });

  it('selects by ids and globs and by shard, from a subdirectory, with -f', async () => {
    writeFiles(project.cwd, { 'src/.keep': '' });
    const some = parseJson(await run(['build', 't*', 'sword', '--dry-run', '--json'], { cwd: path.join(project.cwd, 'src') }));
    expect(some.items.map((item: { id: string }) => item.id)).toEqual(['sword', 'torch']);
    const shards = await Promise.all(
      ['1/2', '2/2'].map(async (shard) => parseJson(await run(['build', '--dry-run', '--json', '--shard', shard]))),
    );
    expect(shards.flatMap((doc) => doc.items.map((item: { id: string }) => item.id)).sort()).toEqual(['hero', 'sword', 'torch']);
    const elsewhere = await run(['build', '--dry-run', '--json', '-f', path.join(project.cwd, 'assetgen.yaml')], {
      cwd: project.home.home,
    });
    expect(parseJson(elsewhere).items).toHaveLength(3);
  });

  it('a manifest error is exit 2 with file:line:col, before any call', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': EXAMPLE.replace('    agent: icon-forge', '    agnt: icon-forge') });
    const before = await project.mock.state();
    const result = await run(['build', '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: assetgen.yaml:6:5: assets[0].agnt: unknown field');
    const json = jsonError(await run(['build', '--dry-run', '--json']));
    expect(json).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(json.message).toMatch(/^assetgen\.yaml:6:5: /);
    expect((await project.mock.state()).ledger).toEqual(before.ledger);
  });

  it('refuses what it cannot plan: videos unconfirmed, an unmatched selector, a bad shard, no service', async () => {
    const paid = await run(['build']);
    expect(paid.code).toBe(2);
    expect(paid.stderr).toContain('pass --yes to confirm');
    const typo = await run(['build', 'swrod', '--dry-run']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('No asset matches "swrod" in assetgen.yaml.');
    expect((await run(['build', '--dry-run', '--shard', '3/2'])).code).toBe(2);
    const noService = await run(['build', '--dry-run'], { env: project.home.env });
    expect(noService.code).toBe(4);
    expect(noService.stderr).toContain('No service URL is configured');
    expect((await run(['build', '--dry-run', '--mock', '--json'], { env: project.home.env })).code).toBe(0);
    const none = await run(['build', '--dry-run'], { cwd: project.home.home });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('assetgen init');
  });

  it('a changed spec names what changed: the service after a --mock build, then the prompt', async () => {
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), EXAMPLE.split('  - id: hero')[0]!);
    expect((await run(['build', '--mock', '-q'])).code).toBe(0);
    const reasonFor = async (id: string): Promise<string[]> => {
      const doc = parseJson(await run(['build', '--dry-run', '--json'])) as { items: { id: string; reasons: string[] }[] };
      return doc.items.find((item) => item.id === id)!.reasons;
    };
    expect(await reasonFor('sword')).toEqual([`spec changed (service: mock → ${serviceId(project.mock.url)})`]);
    fs.writeFileSync(path.join(project.cwd, 'assetgen.yaml'), EXAMPLE.split('  - id: hero')[0]!.replace('rusty sword icon', 'shiny sword'));
    expect((await run(['build', '--dry-run', '--mock', '--json'])).stdout).toContain('spec changed (prompt)');
    // A lock from before parts were recorded can only list what may have changed.
    const lockFile = path.join(project.cwd, 'assetgen.lock');
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    delete lock.assets.sword.specParts;
    fs.writeFileSync(lockFile, JSON.stringify(lock));
    expect((await run(['build', '--dry-run', '--mock', '--json'])).stdout).toContain(
      'spec changed (prompt, overrides, options or service)',
    );
    expect(await reasonFor('sword')).toEqual([`spec changed (service: mock → ${serviceId(project.mock.url)}, maybe more)`]);
  });
});
