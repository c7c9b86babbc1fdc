// Hashes that locks on disk depend on: a spec's hash and an asset's key never change for the same
// asset (every recorded asset would be seen as changed), and a file's hash is its bytes' sha256.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFile, hashFiles, idempotencyKeyFor, specHash } from '../../src/pipeline/hash.js';
import type { ManifestAsset } from '../../src/pipeline/records.js';
import { tempDir, writeFiles } from './helpers.js';

const at = { out: { type: 'folder', dir: 'x' }, position: { line: 1, col: 1 } } as const;

describe('hashes', () => {
  it('a spec hashes as it always has: key order and surrounding blanks of the prompt do not count', () => {
    const hero: ManifestAsset = { id: 'hero', kind: 'workflow', workflow: 'wf_sprite_sheet', set: { zeta: 'z', alpha: 'a dwarf' }, ...at };
    const torch: ManifestAsset = { id: 'torch', kind: 'video', prompt: '  torch on a wall\n', duration: 2.5, aspectRatio: '16:9', ...at };
    const sword: ManifestAsset = { id: 'sword', kind: 'image', prompt: 'rusty sword', agent: 'icon-forge', ...at };
    // Values written by earlier versions: locks recorded then must stay up to date.
    expect(specHash(hero, 'api.example.com')).toBe('09c75dd2fee82d614c3e643f492ece8f95e3e2c23e1b7e9aadbe1d45671efc4b');
    expect(specHash(torch, 'api.example.com/v2')).toBe('43426230eec318c15f08d57db8cc69c8104ac3facc853d9a93289edb9af89672');
    expect(specHash(sword, 'mock')).toBe('fc93c24899399897f003b4f3056f2ba2f7acfa54df680ac58e8eafbcd037af02');
    expect(specHash({ ...hero, set: { alpha: 'a dwarf', zeta: 'z' } }, 'api.example.com')).toBe(specHash(hero, 'api.example.com'));
    expect(idempotencyKeyFor('sword', specHash(sword, 'mock'), 3)).toBe('assetgen-9cc517c086b70efe122a5cf637bb85aab150ec61');
  });

  it('a file hashes to its bytes at every size around the one-read limit (1 MiB), empty included', async () => {
    const dir = tempDir();
    const sizes = [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1];
    const files = Object.fromEntries(sizes.map((size) => [`f${size}.png`, Buffer.alloc(size, size % 251)]));
    writeFiles(dir, files);
    for (const [name, data] of Object.entries(files)) {
      expect(await hashFile(path.join(dir, name))).toEqual({ sha256: createHash('sha256').update(data).digest('hex'), size: data.length });
    }
    // A smaller file after a larger one: nothing of the larger one is left in what is hashed.
    const hashes = await hashFiles(dir, ['f1048576.png', 'f1.png', 'missing.png'], 1);
    expect(hashes.get('f1.png')).toEqual({ sha256: createHash('sha256').update(files['f1.png']!).digest('hex'), size: 1 });
    expect(hashes.get('missing.png')).toBeNull();
  });
});
