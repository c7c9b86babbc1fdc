// `build --dry-run --format markdown --json` printed the JSON plan and dropped --format without a
// word. The two choose what stdout carries, so together they are a usage error (exit 2) saying they
// are alternatives, found before anything is planned, paid or written — with or without --dry-run,
// wherever --json is on the line. Each alone works as before.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({
  files: { 'assetgen.yaml': 'assets:\n  - { id: sword, prompt: a sword, agent: sprite-artist, out: assets/sword.png }\n' },
});

describe('build --format with --json', () => {
  it('is a usage error naming both as alternatives (exit 2): nothing planned, charged or written', async () => {
    for (const args of [
      ['build', '--dry-run', '--format', 'markdown', '--json'],
      ['--json', 'build', '--dry-run', '--format', 'markdown'],
      ['build', '--format', 'markdown', '--json', '--yes', '--max-credits', 'none'],
    ]) {
      const result = await project.run(args);
      const label = args.join(' ');
      expect(result.code, label).toBe(2);
      expect(result.stdout, label).toBe('');
      expect(result.stderr.trimEnd().split('\n'), label).toHaveLength(1);
      const error = jsonError(result);
      expect(error, label).toMatchObject({ code: 'usage', exitCode: 2 });
      expect(error.message, label).toMatch(/^--format markdown and --json are alternatives\b/);
      expect(error.message, label).toContain('use one at a time');
      expect(error.hint, label).toContain('assetgen build --dry-run --format markdown > plan.md');
      expect(error.hint, label).toContain('assetgen build --dry-run --json');
      expect(error.credits, label).toBeUndefined();
    }
    expect(await project.ledger()).toEqual([]);
    expect(fs.existsSync(path.join(project.cwd, 'assets'))).toBe(false);
    expect(fs.existsSync(path.join(project.cwd, 'assetgen.lock'))).toBe(false);
  });

  it('each alone is what it was: the Markdown plan, or the JSON plan (free)', async () => {
    const markdown = await project.run(['build', '--dry-run', '--format', 'markdown']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^### assetgen build plan/);
    const json = await project.run(['build', '--dry-run', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, items: [{ id: 'sword', status: 'new' }] });
    expect(await project.ledger()).toEqual([]);
  });
});
