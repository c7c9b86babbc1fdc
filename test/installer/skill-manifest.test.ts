// The manifest examples the skill shows an agent are manifests assetgen accepts, as written.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/pipeline/manifest.js';

const SKILL = fs.readFileSync(new URL('../../skills/assetgen/SKILL.md', import.meta.url), 'utf8');
const yamlBlocks = [...SKILL.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("the skill's manifest examples", () => {
  it('the matrix, post steps and sheet example is a valid manifest that expands as its comments say', () => {
    const block = yamlBlocks.find((text) => text.includes('matrix:'));
    expect(block).toBeDefined();
    const manifest = parseManifest(`defaults: { agent: sprite-artist }\nassets:\n${block}`, { file: '/project/assetgen.yaml' });
    expect(manifest.assets.map((asset) => asset.id)).toEqual(['potion-red', 'potion-blue', 'potions']);
    expect(manifest.assets[0]!.post).toMatchObject([{ kind: 'trim' }, { kind: 'resize', width: 64, height: 64, kernel: 'nearest' }]);
    // The sheet packs the potions the matrix made, into the atlas and its data file.
    expect(manifest.assets[2]).toMatchObject({
      kind: 'sheet',
      sheet: { from: ['potion-*'], padding: 2 },
      out: { type: 'file', path: 'assets/potions.png' },
    });
  });

  it('the shape example is a valid manifest once its placeholders are filled in', () => {
    const block = yamlBlocks.find((text) => text.startsWith('defaults:'))!;
    const filled = block
      .replaceAll('<agentId>', 'sprite-artist')
      .replaceAll('<workflowId>', 'wf_sprite_sheet')
      .replaceAll('<node>', 'character');
    const manifest = parseManifest(filled, { file: '/project/assetgen.yaml' });
    expect(manifest.assets.map((asset) => asset.id)).toEqual(['potion', 'hero', 'torch']);
  });
});
