// The GitHub Actions workflows are valid (action-validator's core: the workflow schema, as WebAssembly
// from the npm registry, no binary downloaded; called in this process, not through its CLI) and say what docs/ci.md and the README promise: every OS
// and supported Node in the matrix, the packed install per OS, publishing with provenance on a tag.
import { validateWorkflow } from '@action-validator/core';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');

const workflow = (name: string) => parse(fs.readFileSync(path.join(WORKFLOWS, name), 'utf8')) as Record<string, any>;

describe('the CI workflows', () => {
  it('pass the workflow linter, which refuses a broken one', () => {
    const text = (name: string) => fs.readFileSync(path.join(WORKFLOWS, name), 'utf8');
    for (const name of fs.readdirSync(WORKFLOWS)) {
      const { errors } = validateWorkflow(text(name));
      expect(errors, name).toEqual([]);
    }
    const broken = validateWorkflow(text('ci.yml').replace('runs-on:', 'run-on:'));
    expect(JSON.stringify(broken.errors)).toContain("Additional property 'run-on' is not allowed");
  });

  it('test every OS with every supported Node (npm ci, npm test), and the packed install on every OS', () => {
    const { jobs } = workflow('ci.yml');
    expect(jobs.test.strategy.matrix).toEqual({ os: ['ubuntu-latest', 'macos-latest', 'windows-latest'], node: ['20.18.1', '22', '24'] });
    expect(jobs.test.steps.map((step: { run?: string }) => step.run).filter(Boolean)).toEqual(['npm ci', 'npm test']);
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=20.18.1');
    expect(jobs.packed.strategy.matrix.os).toEqual(jobs.test.strategy.matrix.os);
    const packed = JSON.stringify(jobs.packed.steps);
    expect(packed).toContain('npm pack');
    expect(packed).toContain('assetgen build --mock');
    expect(fs.existsSync(path.join(ROOT, 'test', 'fixtures', 'ci-smoke', 'assetgen.yaml'))).toBe(true);
  });

  it('publish with provenance on a version tag, never running an npx that may download', () => {
    const release = workflow('release.yml');
    expect(release.on.push.tags).toEqual(['v*.*.*']);
    expect(release.jobs.publish.permissions['id-token']).toBe('write');
    expect(JSON.stringify(release.jobs.publish.steps)).toContain('npm publish --provenance');
    for (const name of fs.readdirSync(WORKFLOWS)) {
      const text = fs.readFileSync(path.join(WORKFLOWS, name), 'utf8');
      for (const line of text.split('\n').filter((line) => /\bnpx\b/.test(line) && !line.trim().startsWith('#')))
        expect(line, name).toMatch(/npx --no-install /);
    }
  });
});
