// `build --format markdown` is a plan's summary (the pull-request job of docs/ci.md). Without
// --dry-run it used to build — paid calls — and print no Markdown; it is a usage error now (exit 2),
// before anything is planned, paid or written. The ledger holds it to that.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/project.js';

const project = useMockProject({
  files: { 'assetgen.yaml': 'assets:\n  - { id: sword, prompt: a sword, agent: sprite-artist, out: assets/sword.png }\n' },
});

describe('build --format markdown without --dry-run', () => {
  it('exit 2 naming --dry-run, no Markdown, nothing charged, nothing written', async () => {
    const result = await project.run(['build', '--format', 'markdown', '--yes', '--max-credits', 'none']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('--format markdown writes the plan of a dry run');
    expect(result.stderr).toContain('assetgen build --dry-run --format markdown > plan.md');
    expect(result.stdout).toBe('');
    expect(await project.ledger()).toEqual([]);
    expect(fs.existsSync(path.join(project.cwd, 'assets'))).toBe(false);
    expect(fs.existsSync(path.join(project.cwd, 'assetgen.lock'))).toBe(false);
  });

  it('with --dry-run, the plan in Markdown as before (free)', async () => {
    const result = await project.run(['build', '--dry-run', '--format', 'markdown']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^### assetgen build plan/);
    expect(await project.ledger()).toEqual([]);
  });
});
