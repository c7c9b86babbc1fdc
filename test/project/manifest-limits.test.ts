// How big a manifest may be (src/pipeline/manifest-limits.ts): the file size before it is read, the
// YAML nodes before a tree is built, and the nodes walked through aliases; each a usage error
// (exit 2) that says which limit and how to split. Manifests within them parse as before.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestError } from '../../src/pipeline/errors.js';
import { MANIFEST_LIMITS } from '../../src/pipeline/manifest-limits.js';
import { loadManifest } from '../../src/pipeline/manifest.js';
import { PipelineError } from '../../src/pipeline/errors.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { manifestOf, tempDir, thrown } from './helpers.js';

const asset = (i: number): string => `  - id: a${i}\n    prompt: a rusty sword\n    agent: sprite-artist\n    out: assets/\n`;

describe('size', () => {
  it('a file past 8 MiB is refused by its size (exit 2); one just within is read', () => {
    const dir = tempDir();
    const file = path.join(dir, 'assetgen.yaml');
    const head = `assets:\n${asset(1)}`;
    fs.writeFileSync(file, head + '#'.repeat(MANIFEST_LIMITS.bytes - head.length - 1) + '\n');
    expect(loadManifest(file, dir).assets).toHaveLength(1);
    fs.appendFileSync(file, '#');
    const error = thrown(() => loadManifest(file, dir));
    expect(error).toBeInstanceOf(PipelineError);
    expect(exitCodeFor(error)).toBe(EXIT.usage);
    expect(error.message).toBe(`assetgen.yaml is ${MANIFEST_LIMITS.bytes + 1} bytes; a manifest may be at most 8388608 bytes (8 MiB).`);
  });
});

describe('nodes', () => {
  it('a short text of a million nodes is refused by the lexer, at the position where the count passed', () => {
    const error = thrown(() => manifestOf(`assets: [${'0,'.repeat(1_000_000)}0]\n`));
    expect(error).toBeInstanceOf(ManifestError);
    expect(error.message).toMatch(/^assetgen\.yaml:1:200007: the manifest has more than 200000 YAML nodes .*split it/);
  });

  it('empty items count too (a dash alone is a node)', () => {
    expect(thrown(() => manifestOf(`assets:\n${'-\n'.repeat(MANIFEST_LIMITS.nodes + 1)}`)).message).toMatch(/more than 200000 YAML nodes/);
  });

  it('aliases that walk an anchor again and again are counted, and stop the walk', () => {
    const big = Array.from({ length: 2_500 }, (_, i) => `    n${i}: p`).join('\n');
    const assets = Array.from({ length: 100 }, (_, i) => `  - { id: w${i}, workflow: wf_1, set: *big, out: "out/" }`).join('\n');
    const error = thrown(() => manifestOf(`defaults:\n  out: assets/\nx-anchor: &big\n${big}\nassets:\n${assets}\n`));
    expect(error.message).toMatch(/the manifest expands through its aliases to more than 200000 YAML nodes/);
  });

  it("repeated keys are found (in one pass of our own: yaml's check is quadratic) in a mapping of 30,000 keys", () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `    n${i}: p`);
    keys.push('    n7: again');
    const error = thrown(() => manifestOf(`assets:\n  - id: w\n    workflow: wf_1\n    set:\n${keys.join('\n')}\n`));
    expect(error.message).toBe('assetgen.yaml:30005:5: n7: appears twice in one mapping');
  });

  it('a manifest within the limits, anchors and all, parses as before', () => {
    const text = `defaults:\n  agent: &agent sprite-artist\n  out: assets/\nassets:\n${Array.from({ length: 500 }, (_, i) => `  - { id: a${i}, prompt: sword, agent: *agent }`).join('\n')}\n`;
    const { assets } = manifestOf(text);
    expect(assets).toHaveLength(500);
    expect(assets[499]).toMatchObject({ id: 'a499', agent: 'sprite-artist' });
  });
});
