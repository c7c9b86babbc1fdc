// `assetgen build --check` through the real command table (dist/, in-process) against the mock: the build, then its
// outputs measured and held to `checks:` (exit 9, in the --json document and the gallery); once
// everything is up to date, a CI job that runs it again fails the same way without a single
// request to the service, and passes once the rules do — changing `checks:` builds nothing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { parseJson, runInProcess, type CliResult } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const manifest = (alpha: 'required' | 'forbidden') => `defaults:
  agent: icon-forge
  out: assets/
assets:
  - id: sword
    prompt: a rusty sword
    checks: { alpha: ${alpha}, colors: { max: 256 } }
  - { id: shield, prompt: a wooden shield }
`;

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const cli = (args: string[]) => runInProcess(args, { env: project.env(), cwd: project.cwd });

/** Runs `work`; returns its result and how many requests and charges the service saw meanwhile. */
async function served(work: () => Promise<CliResult>): Promise<{ result: CliResult; requests: number; charges: number }> {
  const before = await project.mock.state();
  const result = await work();
  const after = await project.mock.state();
  return { result, requests: after.requests - before.requests, charges: after.ledger.length - before.ledger.length };
}

describe('build --check', () => {
  it('checks what the build made; up to date, it fails a CI job with no service call, and passes once the rules do', async () => {
    // The mock's images are opaque: `alpha: required` is broken.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('required') });
    const first = await served(() => cli(['build', '--check', '--json', '--report', 'report.html']));
    expect(first.result.code, first.result.stderr).toBe(EXIT.checksFailed);
    expect(first.charges).toBe(2);
    const built = parseJson(first.result);
    expect(built.items.map((item: { outcome: string }) => item.outcome)).toEqual(['built', 'built']);
    expect(built.checks.failures).toEqual([
      expect.objectContaining({ id: 'sword', rule: 'alpha', figure: false, limit: 'required', path: 'assets/sword.png' }),
    ]);
    expect(built.checks.files.map((file: { id: string; alpha: boolean }) => [file.id, file.alpha])).toEqual([
      ['sword', false],
      ['shield', false],
    ]);
    // The gallery carries the figures and the broken rule.
    const page = fs.readFileSync(path.join(project.cwd, 'report.html'), 'utf8');
    expect(page).toContain('data-checks="failed"');
    expect(page).toContain('✗ assets/sword.png (sword): alpha required, but every pixel is opaque');
    expect(page).toMatch(/<code>assets\/shield\.png<\/code> 128×128 · alpha no · fill 1 · \d+ colours/);

    // CI, everything up to date: the same failure, and the service never asked.
    const again = await served(() => cli(['build', '--check']));
    expect([again.result.code, again.requests, again.charges]).toEqual([EXIT.checksFailed, 0, 0]);
    expect(again.result.stderr).toContain('✗ assets/sword.png (sword): alpha required, but every pixel is opaque');
    expect(again.result.stderr).toMatch(/^error: 1 check failed: /m);

    // `checks:` is not part of any spec: changing it builds nothing, and the gate passes.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('forbidden') });
    const passing = await served(() => cli(['build', '--check', '--json']));
    expect([passing.result.code, passing.requests, passing.charges]).toEqual([0, 0, 0]);
    expect(parseJson(passing.result)).toMatchObject({ totals: { unchanged: 2 }, checks: { ok: true, failures: [] } });
  });

  it('a build without --check measures nothing; --check with --dry-run is refused (check the outputs as they are with `assetgen check`)', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('required') });
    const plain = await cli(['build', '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(parseJson(plain).checks).toBeUndefined();
    const dry = await served(() => cli(['build', '--check', '--dry-run']));
    expect([dry.result.code, dry.requests]).toEqual([EXIT.usage, 0]);
    expect(dry.result.stderr).toContain('--check measures the outputs a build leaves, and --dry-run builds nothing');
  });
});
