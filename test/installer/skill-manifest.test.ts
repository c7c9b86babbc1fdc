// The manifest examples the skill shows an agent are manifests assetgen accepts, as written.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/pipeline/manifest.js';

const SKILL = fs.readFileSync(new URL('../../skills/assetgen/SKILL.md', import.meta.url), 'utf8');
const yamlBlocks = [...SKILL.matchAll(/```yaml\n([^]*?)```/g)].map((match) => match[1]!);

describe("the skill's manifest examples", () => {
  it('the variants example (matrix and post steps) is a valid manifest that expands as its comment says', () => {
    const block = yamlBlocks.find((text) => text.includes('matrix:'));
    expect(block).toBeDefined();
    const manifest = parseManifest(`defaults: { agent: sprite-artist }\nassets:\n${block}`, { file: '/project/assetgen.yaml' });
    expect(manifest.assets.map((asset) => asset.id)).toEqual(['potion-red', 'potion-blue']);
    expect(manifest.assets[0]!.post).toMatchObject([{ kind: 'trim' }, { kind: 'resize', width: 64, height: 64, kernel: 'nearest' }]);
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
