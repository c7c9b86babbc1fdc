// The waiting tools with an API key (each poll charged: the mock takes 1 credit): when
// max_wait_seconds runs out while a poll is out, the service may charge it after the call has
// answered. The mock holds the poll, the call answers "still running", and the ledger takes the
// credit when it lets go: the answer's `credits` says that poll's charge is not known
// (`unknownCharges`), in `structuredContent` (under the tool's outputSchema) and in its message.
// A wait that runs out between polls stays exact.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRICES } from '../../src/mock/index.js';
import { tempHome } from '../support/cli.js';
import { startMcp, type McpSession, type ToolOutcome } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { until } from '../support/until.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let mcp: McpSession;

beforeAll(async () => {
  mock = await startMock({ credits: 5000 });
  home = tempHome();
  // The key alone: polls go with it, and each is charged.
  mcp = await startMcp({ env: { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey }, cwd: home.cwd });
});
afterAll(async () => {
  await mcp?.close();
  await mock?.close();
  home?.remove();
});
beforeEach(async () => {
  await mock.reset();
  await mock.config({ credits: 5000, faults: { rate: 0 }, videoOutcome: 'succeed', videoSteps: 3, videoPollAfterMs: 0 });
});

/** What the ledger says was spent so far (charges less refunds). */
const spent = async (): Promise<number> => -(await mock.state()).ledger.reduce((sum, entry) => sum + entry.amount, 0);
const held = async (): Promise<number> => (await mock.state()).held as number;

/**
 * Calls `tool` with max_wait_seconds: 1 while the mock holds `endpoint`; checks a poll was out when
 * the call answered, lets it go and waits (bounded) until the ledger charged it. Returns the
 * outcome and what the ledger says the call cost.
 */
async function ranOutWhileHeld(
  tool: string,
  args: Record<string, unknown>,
  endpoint: 'getRun' | 'getVideo',
): Promise<{ outcome: ToolOutcome; cost: number }> {
  const before = await spent();
  await mock.hold([endpoint]);
  const outcome = await mcp.call(tool, { ...args, max_wait_seconds: 1 });
  expect(await held(), JSON.stringify(outcome.json)).toBeGreaterThanOrEqual(1);
  const answered = await spent();
  await mock.hold([]);
  await until('the held poll charged', async () => (await spent()) > answered);
  return { outcome, cost: (await spent()) - before };
}

/** Checks a still-running answer whose last poll got no answer: the known charge, the flag, the words. */
function expectUnknownPoll(outcome: ToolOutcome, charged: number, cost: number): void {
  expect(outcome.result.isError, JSON.stringify(outcome.json)).toBeFalsy();
  const document = outcome.result.structuredContent as Record<string, any>;
  expect(document).toMatchObject({ state: 'running', credits: { charged, unknownCharges: 1 } });
  expect(outcome.json.credits).toEqual(document.credits);
  expect(document.message).toContain('An attempt got no answer: the service may still charge it');
  // The ledger: what the answer knew, plus the poll it could not know.
  expect(cost).toBe(charged + PRICES.keyCall);
}

describe('max_wait_seconds runs out while a charged poll is out', () => {
  it('run_workflow: charged 15 known, unknownCharges 1, the ledger 16', async () => {
    const { outcome, cost } = await ranOutWhileHeld('run_workflow', { id: 'wf_sprite_sheet' }, 'getRun');
    expectUnknownPoll(outcome, 15, cost);
  });

  it('create_video with wait: charged 180 known, unknownCharges 1, the ledger 181', async () => {
    const { outcome, cost } = await ranOutWhileHeld('create_video', { prompt: 'torch', confirm_credits: 180, wait: true }, 'getVideo');
    expectUnknownPoll(outcome, PRICES.video, cost);
  });

  it('wait_video: charged 0 known, unknownCharges 1, the ledger 1', async () => {
    const created = await mcp.call('create_video', { prompt: 'torch', confirm_credits: 180 });
    expect(created.result.isError, JSON.stringify(created.json)).toBeFalsy();
    const { outcome, cost } = await ranOutWhileHeld('wait_video', { id: created.json.job.id }, 'getVideo');
    expectUnknownPoll(outcome, 0, cost);
  });

  it('wait_run: charged 0 known, unknownCharges 1, the ledger 1', async () => {
    // A run whose own wait ran out (its poll held), then followed by wait_run.
    const started = await ranOutWhileHeld('run_workflow', { id: 'wf_sprite_sheet' }, 'getRun');
    const { outcome, cost } = await ranOutWhileHeld('wait_run', { id: started.outcome.json.job.id }, 'getRun');
    expectUnknownPoll(outcome, 0, cost);
  });
});

describe('max_wait_seconds runs out between polls', () => {
  it('create_video with wait: the pause before the first poll outlasts the wait, and credits are exact (no unknownCharges)', async () => {
    // The service asks for 5 s before the first poll: the 1 s wait ends in that pause, no poll out.
    await mock.config({ videoPollAfterMs: 5000 });
    const before = await spent();
    const outcome = await mcp.call('create_video', { prompt: 'torch', confirm_credits: 180, wait: true, max_wait_seconds: 1 });
    const document = outcome.result.structuredContent as Record<string, any>;
    expect(document, JSON.stringify(outcome.json)).toMatchObject({ state: 'running' });
    expect(document.credits).toEqual({ charged: PRICES.video, refunded: 0, balance: expect.any(Number) });
    expect(document.message).not.toContain('no answer');
    expect((await spent()) - before).toBe(PRICES.video);
  });
});
