// Clean edges and what a build records of an image (issue 30, points 3 and 10), against the real mock's
// ledger and a hostile server: a change of only key/bleed re-processes the kept original with nothing
// paid; trim's offsets are in the lock, the sidecar and --json, and place the output where its picture
// was; the service's generation id is in the lock and the sidecar (a take's with takes), and an id
// not of the service's shape is never recorded.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { LockError } from '../../src/pipeline/errors.js';
import { parseLock, readLock } from '../../src/pipeline/lock.js';
import type { ProvenanceRecord } from '../../src/pipeline/provenance.js';
import { parseJson, runInProcess, tempHome, type CliResult } from '../support/cli.js';
import { json, KEY, startServer } from '../support/http.js';
import { netSpend } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const file = (name: string) => path.join(project.cwd, name);
const manifest = (post: string) => `provenance: sidecar
defaults: { agent: sprite-artist, out: assets/ }
assets:
  - { id: sword, prompt: a rusty sword, post: ${post} }
`;
const build = () => project.run(['build', '--json']);
// `provenance: sidecar` puts each sidecar under .assetgen/provenance/, mirroring the outputs.
const sidecar = (name: string) =>
  JSON.parse(fs.readFileSync(file(`.assetgen/provenance/${name}.assetgen.json`), 'utf8')) as ProvenanceRecord;
type Item = { id: string; outcome: string; trim?: unknown; why?: string[] };
const itemOf = (result: CliResult, id: string) => (parseJson(result).items as Item[]).find((item) => item.id === id)!;

async function ledgerOf(work: () => Promise<CliResult>): Promise<{ result: CliResult; charges: number; spent: number }> {
  const before = (await project.ledger()).length;
  const result = await work();
  const added = (await project.ledger()).slice(before);
  return { result, charges: added.filter((entry) => entry.amount < 0).length, spent: netSpend(added) };
}

const raw = async (name: string) => {
  const { data, info } = await sharp(file(name)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
};

describe('clean edges and trim in a build', () => {
  it('a change of only key/bleed pays nothing; trim offsets in the lock, the sidecar and --json place the output where it was', async () => {
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('[trim]') });
    const first = await ledgerOf(build);
    expect(first.result.code, first.result.stderr).toBe(0);
    expect(first.charges).toBe(1);
    // The mock's picture is opaque: trim keeps it whole, and says so.
    const whole = { x: 0, y: 0, width: 128, height: 128, sourceWidth: 128, sourceHeight: 128 };
    expect(readLock(file('assetgen.lock')).assets.sword!.trim).toEqual(whole);

    // Key out its flat background (the colour of its corner), then trim and bleed: no paid call.
    const original = await raw('.assetgen/originals/sword/sword.png');
    const background = original.data.subarray(0, 3);
    const colour = `#${background.toString('hex')}`;
    writeFiles(project.cwd, { 'assetgen.yaml': manifest(`[{ key: { color: '${colour}', tolerance: 0, softness: 0 } }, trim, bleed]`) });
    const dry = parseJson(await project.run(['build', '--dry-run', '--json'])).items as { id: string; action: string; estimate: number }[];
    expect(dry[0]).toMatchObject({ action: 'reprocess', estimate: 0 });
    const keyed = await ledgerOf(build);
    expect(keyed.result.code, keyed.result.stderr).toBe(0);
    expect([keyed.charges, keyed.spent]).toEqual([0, 0]);

    // The picture is what is not background, found here from the original's own pixels.
    let [left, top, right, bottom] = [128, 128, -1, -1];
    for (let y = 0; y < 128; y++)
      for (let x = 0; x < 128; x++)
        if (!original.data.subarray((y * 128 + x) * 4, (y * 128 + x) * 4 + 3).equals(background)) {
          [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
        }
    const trim = { x: left, y: top, width: right - left + 1, height: bottom - top + 1, sourceWidth: 128, sourceHeight: 128 };
    expect(trim.width).toBeLessThan(128);
    const entry = readLock(file('assetgen.lock')).assets.sword!;
    expect(entry.trim).toEqual(trim);
    expect(sidecar('assets/sword.png').trim).toEqual(trim);
    expect(itemOf(keyed.result, 'sword')).toMatchObject({ outcome: 'built', trim });
    // Placed at (x, y) of the source canvas, each pixel of the output is the original's, or background made transparent.
    const output = await raw('assets/sword.png');
    expect([output.width, output.height]).toEqual([trim.width, trim.height]);
    for (let y = 0; y < output.height; y++)
      for (let x = 0; x < output.width; x++) {
        const at = (y * output.width + x) * 4;
        const from = ((y + trim.y) * 128 + x + trim.x) * 4;
        if (output.data[at + 3] === 0) expect(original.data.subarray(from, from + 3).equals(background)).toBe(true);
        else expect(output.data.subarray(at, at + 4).equals(original.data.subarray(from, from + 4))).toBe(true);
      }

    // Only bleed's radius changed: free again; without trim the record goes from the lock, the sidecar and --json.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest(`[{ key: { color: '${colour}', tolerance: 0, softness: 0 } }, { bleed: 2 }]`) });
    const untrimmed = await ledgerOf(build);
    expect([untrimmed.result.code, untrimmed.charges]).toEqual([0, 0]);
    expect(readLock(file('assetgen.lock')).assets.sword!.trim).toBeUndefined();
    expect(sidecar('assets/sword.png').trim).toBeUndefined();
    expect(itemOf(untrimmed.result, 'sword').trim).toBeUndefined();
    // Up to date: --json still says where a trimmed output's picture was.
    writeFiles(project.cwd, { 'assetgen.yaml': manifest('[trim]') });
    expect((await build()).code).toBe(0);
    const unchanged = await ledgerOf(build);
    expect(itemOf(unchanged.result, 'sword')).toMatchObject({ outcome: 'unchanged', trim: whole });
    expect(unchanged.charges).toBe(0);
  });

  it("records the service's generation id in the lock and the sidecar; with takes, the picked take's", async () => {
    writeFiles(project.cwd, {
      'assetgen.yaml': `provenance: sidecar
defaults: { agent: icon-forge, out: assets/ }
assets:
  - { id: sword, prompt: a rusty sword }
  - { id: gem, prompt: a blue gem, variants: 2 }
`,
    });
    const built = await build();
    expect(built.code, built.stderr).toBe(0);
    const lock = readLock(file('assetgen.lock'));
    expect(lock.assets.sword!.generationId).toMatch(/^gen_/);
    expect(sidecar('assets/sword.png').generationId).toBe(lock.assets.sword!.generationId);
    const takes = lock.assets.gem!.candidates!.map((take) => take.generationId);
    expect(takes).toHaveLength(2);
    expect(new Set(takes).size).toBe(2);
    for (const id of takes) expect(id).toMatch(/^gen_/);
    expect(lock.assets.gem!.generationId).toBe(takes[0]);
    expect(sidecar('assets/gem.png').generationId).toBe(takes[0]);
    // Picking take 2 (free): its generation made the files now.
    const picked = await ledgerOf(() => project.run(['pick', 'gem', '2', '--json']));
    expect([picked.result.code, picked.charges]).toEqual([0, 0]);
    expect(readLock(file('assetgen.lock')).assets.gem!.generationId).toBe(takes[1]);
    expect((await build()).code).toBe(0);
    expect(sidecar('assets/gem.png').generationId).toBe(takes[1]);
  });
});

describe('a generation id from a hostile server', () => {
  const PNG = sharp({ create: { width: 4, height: 4, channels: 4, background: { r: 9, g: 9, b: 9, alpha: 1 } } })
    .png()
    .toBuffer();
  // Chosen by prompt (the build sends assets side by side): one good id, and ids no file, lock or terminal should take.
  const IDS: Record<string, string> = {
    good: 'gen_ok-1.2:3',
    traversal: '../../../etc/passwd',
    control: 'gen_\u001b[31mred\nline',
    long: `gen_${'x'.repeat(200)}`,
    spaced: 'gen 1',
  };

  it('is recorded only when it has the shape of a service id; the images are saved all the same', async () => {
    const home = tempHome();
    const server = await startServer(async (req, res, seen) => {
      if (req.method === 'POST' && seen.url === '/api/v1/generate') {
        const prompt = (JSON.parse(seen.body) as { prompt: string }).prompt;
        return json(res, 200, { id: IDS[prompt], status: 'succeeded', url: `/files/${prompt}.png`, credits: 1 });
      }
      if (req.method === 'GET' && seen.url.startsWith('/files/')) {
        const bytes = await PNG;
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
        return res.end(bytes);
      }
      return json(res, 404, { error: 'not found' });
    });
    try {
      const assets = Object.keys(IDS)
        .map((prompt) => `  - { id: ${prompt}, prompt: ${prompt} }`)
        .join('\n');
      writeFiles(home.cwd, {
        'assetgen.yaml': `provenance: sidecar\ndefaults: { agent: a, out: assets/, post: [trim] }\nassets:\n${assets}\n`,
      });
      const result = await runInProcess(['build', '--json'], {
        env: { ...home.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: KEY },
        cwd: home.cwd,
      });
      expect(result.code, result.stderr).toBe(0);
      const lock = readLock(path.join(home.cwd, 'assetgen.lock'));
      const read = (id: string) =>
        JSON.parse(fs.readFileSync(path.join(home.cwd, `.assetgen/provenance/assets/${id}.png.assetgen.json`), 'utf8')) as ProvenanceRecord;
      expect(lock.assets.good!.generationId).toBe(IDS.good);
      expect(read('good').generationId).toBe(IDS.good);
      for (const id of ['traversal', 'control', 'long', 'spaced']) {
        expect(lock.assets[id]!.files.map((one) => one.path)).toEqual([`assets/${id}.png`]);
        expect(lock.assets[id]!.generationId, id).toBeUndefined();
        expect(read(id).generationId, id).toBeUndefined();
        expect(read(id).trim).toEqual({ x: 0, y: 0, width: 4, height: 4, sourceWidth: 4, sourceHeight: 4 });
      }
      const text = fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8');
      expect(text).not.toContain('passwd');
      expect(text).not.toContain('\\u001b');
    } finally {
      await server.close();
      home.remove();
    }
  });

  it('a lock (or a cached entry) with a bad generationId or trim is refused by name', () => {
    const entry = (extra: Record<string, unknown>) =>
      JSON.stringify({
        lockfileVersion: 1,
        assets: { sword: { kind: 'image', files: [{ path: 'a.png', sha256: 'a'.repeat(64), size: 1 }], ...extra } },
      });
    expect(
      parseLock(entry({ generationId: 'gen_1', trim: { x: 1, y: 2, width: 3, height: 4, sourceWidth: 4, sourceHeight: 6 } }), 'l').assets
        .sword!.generationId,
    ).toBe('gen_1');
    const refusal = (extra: Record<string, unknown>) => {
      try {
        parseLock(entry(extra), 'assetgen.lock');
      } catch (error) {
        expect(error).toBeInstanceOf(LockError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal({ generationId: '../x' })).toBe(
      'assetgen.lock: assets.sword.generationId: must be an id the service gives (1 to 128 letters, digits, _ . : - only)',
    );
    expect(refusal({ trim: { x: 1, y: 0, width: 4, height: 1, sourceWidth: 4, sourceHeight: 1 } })).toMatch(
      /^assetgen\.lock: assets\.sword\.trim: must be/,
    );
    expect(refusal({ trim: { x: 0, y: 0, width: 1, height: 1, sourceWidth: 1, sourceHeight: 1, extra: 1 } })).toMatch(/trim: must be/);
    expect(refusal({ candidates: [{ k: 1, file: 'a.png', sha256: 'a'.repeat(64), size: 1, credits: null, generationId: 'a b' }] })).toMatch(
      /candidates: take 1: generationId must be an id the service gives/,
    );
  });
});
