// generate_image with `variants`: N takes through the same code as `assetgen generate --variants`,
// behind a consent that names the N paid calls (the argument, or the person through elicitation).
import fs from 'node:fs';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { INLINE_IMAGE_LIMITS } from '../../src/imaging/limits.js';
import { decodePng } from '../../src/ui/preview/png.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let mcp: McpSession;
/** A client that shows confirmations, and answers each with the next of these. */
let asking: McpSession;
const answers: boolean[] = [];
const questions: string[] = [];

beforeAll(async () => {
  mock = await startMock({});
  home = tempHome();
  const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
  mcp = await startMcp({ env, cwd: home.cwd });
  asking = await startMcp({
    env,
    cwd: home.cwd,
    capabilities: { elicitation: {} },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        questions.push(request.params.message);
        return answers.shift() ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      }),
  });
});
afterAll(async () => {
  await mcp?.close();
  await asking?.close();
  await mock.close();
  home.remove();
});
beforeEach(async () => {
  await mock.reset();
});

const charges = async () => (await mock.state()).ledger.filter((entry) => entry.reason.startsWith('generate '));

describe('generate_image variants', () => {
  it('without confirm_paid_calls nothing is sent; a wrong count is refused; confirmed, N takes are N charges, N files and one contact sheet', async () => {
    const refused = await mcp.call('generate_image', { prompt: 'bat', agent: 'sprite-artist', variants: 3 });
    expect(refused.result.isError).toBe(true);
    expect(refused.json.error.message).toContain('3 takes are 3 paid calls');
    expect(refused.json.error.hint).toContain('"confirm_paid_calls": 3');
    const wrong = await mcp.call('generate_image', { prompt: 'bat', agent: 'sprite-artist', variants: 3, confirm_paid_calls: 2 });
    expect(wrong.result.isError).toBe(true);
    expect((await mock.state()).requests).toBe(0);

    const made = await mcp.call('generate_image', {
      prompt: 'bat',
      agent: 'sprite-artist',
      variants: 3,
      confirm_paid_calls: 3,
      output: 'sprites/bat.png',
      idempotency_key: 'mcp-bat',
    });
    expect(made.result.isError, JSON.stringify(made.json)).toBeFalsy();
    expect(made.json.takes.map((take: { k: number; credits: number }) => [take.k, take.credits])).toEqual([
      [1, 10],
      [2, 10],
      [3, 10],
    ]);
    expect(made.json.saved.map((file: string) => file.slice(home.cwd.length + 1))).toEqual([
      'sprites/bat-1.png',
      'sprites/bat-2.png',
      'sprites/bat-3.png',
    ]);
    // Three takes that differ, shown as one contact sheet (numbered cells), within the inline image limit.
    expect(new Set(made.json.saved.map((file: string) => fs.readFileSync(file).toString('base64'))).size).toBe(3);
    const images = made.result.content.filter((item) => item.type === 'image') as { data: string }[];
    expect(images).toHaveLength(1);
    const sheet = Buffer.from(images[0]!.data, 'base64');
    expect(sheet.length).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxBytes);
    const { width, height } = decodePng(sheet);
    expect(Math.max(width, height)).toBeLessThanOrEqual(INLINE_IMAGE_LIMITS.maxSide);
    expect((await charges()).map((entry) => entry.idempotencyKey)).toEqual(['mcp-bat', 'mcp-bat-take-2', 'mcp-bat-take-3']);
  });

  it('a client that shows confirmations asks the person, naming the N paid calls; a no charges nothing', async () => {
    answers.push(false, true);
    const declined = await asking.call('generate_image', { prompt: 'slime', agent: 'sprite-artist', variants: 2, output: 'a/' });
    expect(declined.result.isError).toBe(true);
    expect(declined.json.error.message).toContain('no take was made and nothing was charged');
    expect(await charges()).toHaveLength(0);
    const accepted = await asking.call('generate_image', { prompt: 'slime', agent: 'sprite-artist', variants: 2, output: 'a/' });
    expect(accepted.result.isError, JSON.stringify(accepted.json)).toBeFalsy();
    expect(questions).toEqual([expect.stringContaining('2 takes are 2 paid calls'), expect.stringContaining('2 takes are 2 paid calls')]);
    expect(await charges()).toHaveLength(2);
  });

  it("a failure part-way reports the take saved and how to make the rest in the tool's words", async () => {
    await mock.config({ credits: 10 });
    const failed = await mcp.call('generate_image', {
      prompt: 'bat',
      agent: 'sprite-artist',
      variants: 2,
      confirm_paid_calls: 2,
      output: 'b/bat.png',
    });
    expect(failed.result.isError).toBe(true);
    expect(failed.json.error.takes).toHaveLength(1);
    expect(failed.json.error.resume).toMatch(
      /^Call generate_image again with the same arguments, `idempotency_key: "[\w-]+"` and `overwrite: true`$/,
    );
    const key = /idempotency_key: "([\w-]+)"/.exec(failed.json.error.resume)![1];
    await mock.config({ credits: 100 });
    const rest = await mcp.call('generate_image', {
      prompt: 'bat',
      agent: 'sprite-artist',
      variants: 2,
      confirm_paid_calls: 2,
      output: 'b/bat.png',
      idempotency_key: key,
      overwrite: true,
    });
    expect(rest.result.isError, JSON.stringify(rest.json)).toBeFalsy();
    expect(rest.json.takes.map((take: { credits: number }) => take.credits)).toEqual([0, 10]);
    expect(await charges()).toHaveLength(2);
  });
});
