// Takes through the MCP tools, as an agent meets them: a build of assets with `variants` lists the
// takes in its structured result and shows each asset's contact sheet as an image; pick_variant
// chooses one for free; the next build pays nothing; `more` on build makes exactly K more takes.
// The real `assetgen mcp` (stdio) against the bundled mock, its ledger the truth about money.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMcpProject } from '../support/mcp.js';
import { decodePng } from '../../src/ui/preview/png.js';
import { INLINE_IMAGE_LIMITS } from '../../src/imaging/limits.js';

const MANIFEST = `defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: bat, prompt: a bat, variants: 3 }
  - { id: slime, prompt: a slime, variants: 2 }
  - { id: sword, prompt: a sword }
`;

const project = useMcpProject(MANIFEST);

/** The paid generations in the ledger, so far. */
const charges = async () => (await project.mock.state()).ledger.filter((entry) => entry.amount < 0);
const images = (content: { type: string }[]) =>
  content.filter((item): item is { type: 'image'; data: string; mimeType: string } => item.type === 'image');

describe('takes through the MCP tools', () => {
  it('build lists the takes and shows each contact sheet; pick_variant is free; the next build pays nothing; more makes exactly K', async () => {
    const built = await project.mcp.call('build', {});
    expect(built.result.isError, JSON.stringify(built.json)).toBeFalsy();
    expect(await charges()).toHaveLength(3 + 2 + 1);
    const items = built.result.structuredContent!.items as { id: string; takes?: { k: number; file: string }[]; picked?: number }[];
    const bat = items.find((item) => item.id === 'bat')!;
    expect(bat.takes!.map((take) => take.k)).toEqual([1, 2, 3]);
    expect(bat.picked).toBe(1);
    expect(items.find((item) => item.id === 'sword')!.takes).toBeUndefined();

    // One contact sheet per asset with takes, each the PNG `list_takes` writes, within the inline limit.
    const sheets = images(built.result.content as { type: string }[]);
    expect(sheets).toHaveLength(2);
    for (const [index, id] of ['bat', 'slime'].entries()) {
      const bytes = Buffer.from(sheets[index]!.data, 'base64');
      expect(sheets[index]!.mimeType).toBe('image/png');
      expect(bytes.equals(fs.readFileSync(path.join(project.home.cwd, '.assetgen', 'takes', `${id}.png`)))).toBe(true);
      expect(bytes.length).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxBytes);
      const { width, height } = decodePng(bytes);
      expect(Math.max(width, height)).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxSide);
      // The layout beside it names each numbered cell's file: the agent's "pick 2" is take 2.
      const layout = JSON.parse(fs.readFileSync(path.join(project.home.cwd, '.assetgen', 'takes', `${id}.json`), 'utf8'));
      expect(layout.takes.map((cell: { k: number; file: string }) => [cell.k, cell.file])).toEqual(
        items.find((item) => item.id === id)!.takes!.map((take) => [take.k, take.file]),
      );
    }

    const listed = await project.mcp.call('list_takes', { id: 'bat' });
    expect(listed.result.isError, JSON.stringify(listed.json)).toBeFalsy();
    expect(listed.json.takes.map((take: { k: number; picked: boolean }) => [take.k, take.picked])).toEqual([
      [1, true],
      [2, false],
      [3, false],
    ]);
    expect(images(listed.result.content as { type: string }[])).toHaveLength(1);

    const before = (await charges()).length;
    const picked = await project.mcp.call('pick_variant', { id: 'bat', take: 2 });
    expect(picked.result.isError, JSON.stringify(picked.json)).toBeFalsy();
    expect(picked.json).toMatchObject({ id: 'bat', from: 1, picked: 2, credits: 0 });
    const take2 = fs.readFileSync(path.join(project.home.cwd, bat.takes![1]!.file));
    expect(fs.readFileSync(path.join(project.home.cwd, 'assets', 'bat.png')).equals(take2)).toBe(true);
    expect(await charges()).toHaveLength(before);

    const again = await project.mcp.call('build', {});
    expect(again.result.isError, JSON.stringify(again.json)).toBeFalsy();
    expect(await charges()).toHaveLength(before);
    expect(images(again.result.content as { type: string }[])).toHaveLength(0);
    expect(fs.readFileSync(path.join(project.home.cwd, 'assets', 'bat.png')).equals(take2)).toBe(true);

    const more = await project.mcp.call('build', { ids: ['bat'], more: 2 });
    expect(more.result.isError, JSON.stringify(more.json)).toBeFalsy();
    expect(await charges()).toHaveLength(before + 2);
    const after = (more.result.structuredContent!.items as { id: string; takes?: { k: number }[]; picked?: number }[]).find(
      (item) => item.id === 'bat',
    )!;
    expect(after.takes!.map((take) => take.k)).toEqual([1, 2, 3, 4, 5]);
    expect(after.picked).toBe(2);
    expect(images(more.result.content as { type: string }[])).toHaveLength(1);
  });

  it('more without ids, a take that does not exist, or an argument the tool does not have: refused, nothing charged', async () => {
    const before = (await charges()).length;
    const everything = await project.mcp.call('build', { more: 2 });
    expect(everything.result.isError).toBe(true);
    expect(everything.json.error.message).toContain('give their ids or a glob');
    const missing = await project.mcp.call('pick_variant', { id: 'bat', take: 9 });
    expect(missing.result.isError).toBe(true);
    expect(missing.json.error.message).toMatch(/"bat" has no take 9: its takes are 1 to 5/);
    const unknown = await project.mcp.call('pick_variant', { id: 'bat', take: 1, force: true });
    expect(unknown.result.isError).toBe(true);
    expect(JSON.stringify(unknown.result.content)).toMatch(/pick_variant[\s\S]*force|force[\s\S]*pick_variant/);
    expect(await charges()).toHaveLength(before);
  });
});
