// The build's last hint follows the kind of each failure, never its text. A failure that building
// again as it is repeats — a slice grid larger than the image, a gaps count not found, a sheet's
// frame larger than its page, a page name another asset owns — says to fix the manifest (or the file
// it names) first, re-processing being free; never "try again". A failure that may pass (a video
// job the service failed) keeps "try again"; paid work in the lock is resumed; a mix says each for
// its assets. Each failed item of --json carries `error: {code, repeats}`. Over MCP the same hint
// in the build tool's words, no CLI flag. The real CLI in process, and the MCP server in process,
// against the mock's ledger.
import { describe, expect, it } from 'vitest';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { startMcp } from '../support/mcp.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000, faults: { rate: 0 } } });
const write = (text: string) => writeFiles(project.cwd, { 'assetgen.yaml': text });
const charges = async () => (await project.ledger()).filter((entry) => entry.amount < 0).length;
const errors = (result: CliResult) =>
  Object.fromEntries(
    (parseJson(result).items as { id: string; outcome: string; error?: unknown }[])
      .filter((item) => item.outcome === 'failed')
      .map((item) => [item.id, item.error]),
  );

const HEAD = 'defaults: { agent: sprite-artist, out: assets/ }\nassets:\n';
const TOO_MANY = '  - { id: toomany, prompt: orc, post: [{ slice: { columns: 200 } }] }\n';
const GAPS = '  - { id: gapscount, prompt: ghost, post: [{ slice: { gaps: transparent, count: 3 } }] }\n';
const COIN = '  - { id: coin, prompt: coin }\n';
const SLICE_FAILED = { code: 'slice_failed', repeats: true };

const REPEATS = (each: string, again = 'run `assetgen build` again', ids = '') =>
  `Building again as it is fails the same way${ids}: fix the manifest (or the file ${each} names), then ${again}; re-processing is free (what was paid for is kept).`;
const AFRESH = 'Run `assetgen build` again to try them afresh.';
/** A flag of the command line, or a command other than `assetgen auth login`. */
const COMMAND_LINE = /(?:^|[\s(`'"])(?:--[a-z][a-z-]*|-o\b|-f <)|\bassetgen (?!auth login\b)/;

describe("the build's last hint, by the kind of each failure", () => {
  it('a slice that cannot cut the image: fix the manifest, not "try again"; the rebuild is free and says the same', async () => {
    write(`${HEAD}${TOO_MANY}${GAPS}${COIN}`);
    const first = await project.run(['build', '--json']);
    expect(first.code).toBe(1);
    expect(errors(first)).toEqual({ toomany: SLICE_FAILED, gapscount: SLICE_FAILED });
    expect(jsonError(first)).toMatchObject({ code: 'build_failed', exitCode: 1, hint: REPEATS('each failure') });
    expect(await charges()).toBe(3);

    const again = await project.run(['build']);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n').slice(-2)).toEqual(['error: 2 assets failed: toomany, gapscount.', REPEATS('each failure')]);
    expect(again.stderr).not.toContain('try them afresh');
    expect(await charges()).toBe(3);
  });

  it("a sheet's frame larger than its page, and a page name the lock gives another asset: the sheet fails, repeating", async () => {
    write(`${HEAD}${COIN}  - { id: icons, sheet: { from: [coin], maxSize: 64 }, out: assets/icons.png }\n`);
    const small = await project.run(['build', '--json']);
    expect(small.code).toBe(1);
    expect(errors(small)).toEqual({ icons: { code: 'atlas_too_small', repeats: true } });
    expect(jsonError(small).hint).toBe(REPEATS('the failure'));

    // fx-0 built, then left out of the manifest (not pruned): the lock still gives it assets/fx-0.png.
    write(`${HEAD}  - { id: fx-0, prompt: a fireball }\n`);
    expect((await project.run(['build'])).code).toBe(0);
    write(`${HEAD}${COIN}  - { id: gem, prompt: gem }\n  - { id: fx, sheet: { from: [coin, gem], maxSize: 256 }, out: assets/fx.png }\n`);
    const clash = await project.run(['build', '--json']);
    expect(clash.code).toBe(1);
    expect(errors(clash)).toEqual({ fx: { code: 'path_refused', repeats: true } });
    expect(parseJson(clash).items.find((item: { id: string }) => item.id === 'fx').reason).toBe(
      'assets/fx-0.png belongs to "fx-0" (assetgen.lock); "fx" may not write over it.',
    );
    expect(jsonError(clash).hint).toBe(REPEATS('the failure'));
    expect(await charges()).toBe(3); // coin (once), fx-0, gem: the sheets are free
  });

  it('a video job the service failed may pass: "try again"; with a repeating failure, each is named with its own advice', async () => {
    await project.mock.config({ videoOutcome: 'fail', videoSteps: 1, videoPollAfterMs: 0 });
    write(`${HEAD}  - { id: clip, video: a torch flickering }\n`);
    const video = await project.run(['build', '--yes', '--json']);
    expect(video.code).toBe(1);
    expect(errors(video)).toEqual({ clip: { code: expect.any(String), repeats: false } });
    expect(jsonError(video).hint).toBe(AFRESH);

    write(`${HEAD}${TOO_MANY}  - { id: clip, video: a torch flickering }\n`);
    const mixed = await project.run(['build', '--yes', '--json']);
    expect(mixed.code).toBe(1);
    expect(jsonError(mixed).hint).toBe(
      `${REPEATS('the failure', undefined, ' for toomany')} Run \`assetgen build\` again to try clip afresh.`,
    );
  });

  it('paid work kept in the lock is resumed, beside a failure that repeats', async () => {
    write(`${HEAD}${TOO_MANY}`);
    expect((await project.run(['build'])).code).toBe(1);
    write(`${HEAD}${TOO_MANY}${COIN}`);
    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    try {
      const result = await project.run(['build', '--json']);
      expect(result.code).toBe(1);
      expect(errors(result).toomany).toEqual(SLICE_FAILED);
      expect(jsonError(result).hint).toBe(
        `${REPEATS('the failure', undefined, ' for toomany')} Paid work is recorded in assetgen.lock: run \`assetgen build\` again to resume it (no second charge for a job with an id; one without is asked again with its idempotency key, free if the service honours Idempotency-Key).`,
      );
    } finally {
      await project.mock.config({ faults: { rate: 0 } });
    }
  });

  it('over MCP: the same advice in the build tool’s words, no CLI flag or command', async () => {
    write(`${HEAD}${TOO_MANY}${COIN}`);
    const mcp = await startMcp({ env: project.env(), cwd: project.cwd });
    try {
      const { result, json } = await mcp.call('build', {});
      expect(result.isError).toBe(true);
      expect(json.error.message).toBe('1 asset failed: toomany.');
      expect(json.error.hint).toBe(REPEATS('the failure', 'call `build` again'));
      expect(COMMAND_LINE.test(json.error.hint)).toBe(false);
      const items = (result.structuredContent?.items ?? []) as { id: string; error?: unknown }[];
      expect(items.find((item) => item.id === 'toomany')?.error).toEqual(SLICE_FAILED);
    } finally {
      await mcp.close();
    }
    expect(await charges()).toBe(2);
  });
});
