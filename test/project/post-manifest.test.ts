// `post:` in the manifest: read by the imaging core's own parser, every problem at the file:line:col
// of the value it names (exit 2 through the CLI); an asset's own list replaces defaults.post; a file
// `out` must have the extension the steps write.
import { describe, expect, it } from 'vitest';
import { runCli, TEST_PATH } from '../support/cli.js';
import { manifestOf, tempDir, thrown, writeFiles } from './helpers.js';

const error = (text: string): string => thrown(() => manifestOf(text)).message;

describe('post in the manifest', () => {
  it('parses the steps with every default; an asset’s own list (even empty) replaces defaults.post, which is for images only', () => {
    const manifest = manifestOf(`defaults:
  agent: icon-forge
  post: [trim, { resize: 64x64 }]
assets:
  - { id: a, prompt: p }
  - { id: b, prompt: p, post: [pot, { palette: 8 }, { format: webp }] }
  - { id: c, prompt: p, post: [] }
  - { id: d, video: v }
`);
    const post = Object.fromEntries(manifest.assets.map((asset) => [asset.id, asset.post]));
    expect(post.a).toEqual([
      { kind: 'trim', threshold: 0 },
      { kind: 'resize', width: 64, height: 64, fit: 'contain', kernel: 'lanczos3' },
    ]);
    expect(post.b).toEqual([{ kind: 'pot' }, { kind: 'palette', colors: 8, dither: 0 }, { kind: 'format', format: 'webp' }]);
    expect(post.c).toBeUndefined();
    expect(post.d).toBeUndefined();
  });

  it('names the bad value at its line and column', () => {
    expect(error('assets:\n  - id: a\n    prompt: p\n    agent: x\n    post:\n      - trim\n      - resize: { width: 64px }\n')).toBe(
      'assetgen.yaml:7:26: assets[0].post: post[1].resize.width must be a whole number from 1 to 16384, got "64px"',
    );
    expect(error('defaults: { agent: x, post: [blur] }\nassets: []\n')).toBe(
      'assetgen.yaml:1:30: defaults.post: post[0]: unknown step "blur"; the steps are trim, resize, pot, palette, format, key, bleed, extrude, slice',
    );
    expect(error('assets:\n  - { id: a, prompt: p, agent: x, post: [{ format: png }, trim] }\n')).toMatch(
      /^assetgen\.yaml:2:42: assets\[0\]\.post: post\[0\]: format must be the last step/,
    );
    expect(error('assets:\n  - { id: a, workflow: wf, out: o/, post: [pot] }\n')).toMatch(
      /^assetgen\.yaml:2:37: assets\[0\]\.post: does not apply to a workflow asset/,
    );
  });

  it('a file out must have the extension the steps write; none may be in .assetgen/', () => {
    expect(error('assets:\n  - { id: a, prompt: p, agent: x, out: a.jpg, post: [pot] }\n')).toBe(
      'assetgen.yaml:2:40: assets[0].out: post writes PNG: give the file the .png extension (or a folder ending in /)',
    );
    expect(error('assets:\n  - { id: a, prompt: p, agent: x, out: a.png, post: [{ format: webp }] }\n')).toMatch(/post writes WEBP/);
    expect(() => manifestOf('assets:\n  - { id: a, prompt: p, agent: x, out: a.webp, post: [{ format: webp }] }\n')).not.toThrow();
    expect(error('defaults: { agent: x, out: .assetgen/x }\nassets: []\n')).toMatch(/\.assetgen\/, assetgen's own folder/);
  });

  it('through the CLI: exit 2, nothing sent', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'assetgen.yaml': 'assets:\n  - { id: a, prompt: p, agent: x, post: [{ palette: 300 }] }\n' });
    const result = await runCli(['build', '--dry-run', '--mock'], { cwd: dir, env: { HOME: dir, PATH: TEST_PATH } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('assetgen.yaml:2:53: assets[0].post: post[0].palette must be a whole number from 2 to 256, got 300');
  });
});
