// A poll made with an API key is charged (the mock: 1 credit). When a wait stops while a poll is
// out (--timeout, Ctrl-C), the service may charge that poll after the command stopped listening:
// the mock holds it, the command ends, and the ledger takes the credit when it lets go. So the
// command's `credits` must not read as exact: `charged` is what the answers said, and
// `unknownCharges` says a poll's charge is not known (the ledger is then `charged` + that poll).
// A wait stopped between polls, or polls made with a session (not charged), stay exact.
import { describe, expect, it } from 'vitest';
import { PRICES } from '../../src/mock/index.js';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { until } from '../support/until.js';

const project = useMockProject({
  mock: { credits: 5000 },
  config: { credits: 5000, faults: { rate: 0 }, videoOutcome: 'succeed', videoSteps: 3, videoPollAfterMs: 0 },
});

/** What the ledger says was spent so far (charges less refunds). */
const spent = async (): Promise<number> => -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);
const held = async (): Promise<number> => (await project.mock.state()).held as number;

/** A job of `kind` submitted without waiting (its poll is what the tests stop). */
async function submitted(kind: 'run' | 'video'): Promise<string> {
  const args =
    kind === 'run'
      ? ['workflows', 'run', 'wf_sprite_sheet', '--no-wait', '--json']
      : ['video', 'create', 'torch', '--yes', '--no-wait', '--json'];
  const result = await project.run(args);
  expect(result.code, result.stderr).toBe(0);
  return (parseJson(result).job as { id: string }).id;
}

/**
 * Runs `args` while the mock holds `endpoint`, stopped once a poll is held: by --timeout (run out
 * then, not on the clock: `timeoutWhen`) or by Ctrl-C. Then checks a poll was out when it stopped,
 * lets it go, and waits (bounded) until the ledger has charged it. Returns the result and what the
 * ledger says this command cost.
 */
async function stoppedWhileHeld(
  args: string[],
  endpoint: 'getRun' | 'getVideo',
  how: 'timeout' | 'ctrl-c',
  env?: NodeJS.ProcessEnv,
): Promise<{ result: CliResult; cost: number }> {
  const before = await spent();
  await project.mock.hold([endpoint]);
  const controller = new AbortController();
  const running = project.run(how === 'timeout' ? [...args, '--timeout', '1500ms'] : args, {
    ...(how === 'timeout' ? { timeoutWhen: controller.signal } : { interrupt: controller.signal }),
    ...(env ? { env } : {}),
  });
  await until(`the ${endpoint} poll held`, async () => (await held()) >= 1);
  controller.abort();
  const result = await running;
  // The stop fell while a poll was out: the mock still holds it.
  expect(await held(), result.stderr).toBeGreaterThanOrEqual(1);
  const afterStop = await spent();
  await project.mock.hold([]);
  if (!env) await until('the held poll charged', async () => (await spent()) > afterStop);
  return { result, cost: (await spent()) - before };
}

describe('a wait stopped while a charged poll is out says its charge is not known', () => {
  it('workflows run --timeout: charged is the known 15, unknownCharges 1, and the ledger 15 + the poll', async () => {
    const { result, cost } = await stoppedWhileHeld(['workflows', 'run', 'wf_sprite_sheet', '--json'], 'getRun', 'timeout');
    expect(result.code, result.stderr).toBe(7);
    const error = jsonError(result);
    expect(error.credits).toMatchObject({ charged: 15, unknownCharges: 1 });
    expect(cost).toBe(error.credits.charged + PRICES.keyCall);
    // The balance is the last one an answer reported: the ledger's is lower by the poll.
    expect(error.credits.balance).toBe((await project.mock.state()).credits + PRICES.keyCall);
    expect(error.hint).toContain('An attempt got no answer: the service may still charge it');
  });

  it('video create --timeout: charged 180 known, unknownCharges 1, the ledger 181', async () => {
    const { result, cost } = await stoppedWhileHeld(['video', 'create', 'torch', '--yes', '--json'], 'getVideo', 'timeout');
    expect(result.code, result.stderr).toBe(7);
    const error = jsonError(result);
    expect(error.credits).toMatchObject({ charged: PRICES.video, unknownCharges: 1 });
    expect(cost).toBe(error.credits.charged + PRICES.keyCall);
  });

  it('runs wait, Ctrl-C on its first poll: the error carries credits (charged 0, unknownCharges 1), the ledger 1', async () => {
    const id = await submitted('run');
    const { result, cost } = await stoppedWhileHeld(['runs', 'wait', id, '--json'], 'getRun', 'ctrl-c');
    expect(result.code, result.stderr).toBe(130);
    const error = jsonError(result);
    expect(error.credits).toEqual({ charged: 0, refunded: 0, balance: null, unknownCharges: 1 });
    expect(cost).toBe(PRICES.keyCall);
  });

  it('video wait --timeout: charged 0 known, unknownCharges 1, the ledger 1', async () => {
    const id = await submitted('video');
    const { result, cost } = await stoppedWhileHeld(['video', 'wait', id, '--json'], 'getVideo', 'timeout');
    expect(result.code, result.stderr).toBe(7);
    expect(jsonError(result).credits).toMatchObject({ charged: 0, unknownCharges: 1 });
    expect(cost).toBe(PRICES.keyCall);
  });

  for (const [kind, endpoint] of [
    ['run', 'getRun'],
    ['video', 'getVideo'],
  ] as const) {
    it(`${kind === 'run' ? 'runs' : 'video'} get --timeout (one poll): unknownCharges 1, the ledger 1`, async () => {
      const id = await submitted(kind);
      const { result, cost } = await stoppedWhileHeld([kind === 'run' ? 'runs' : 'video', 'get', id, '--json'], endpoint, 'timeout');
      expect(result.code, result.stderr).toBe(7);
      expect(jsonError(result).credits).toMatchObject({ charged: 0, unknownCharges: 1 });
      expect(cost).toBe(PRICES.keyCall);
    });
  }

  it('for people: the error says the poll may still be charged, and how to resume', async () => {
    const id = await submitted('video');
    const { result } = await stoppedWhileHeld(['video', 'wait', id], 'getVideo', 'timeout');
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toContain('An attempt got no answer: the service may still charge it (not counted in the credits reported).');
    expect(result.stderr).toContain(`resume with: assetgen video wait ${id}`);
  });

  it('for people, a failure after paying says what was spent, as a success does (the --json error carries the same credits)', async () => {
    const { result, cost } = await stoppedWhileHeld(['video', 'create', 'torch', '--yes'], 'getVideo', 'timeout');
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(
      /Charged at least 180 credits \(an attempt got no answer: its charge is not known\); at most \d+ remaining\./,
    );
    expect(result.stderr.match(/Charged/g)).toHaveLength(1);
    expect(cost).toBe(PRICES.video + PRICES.keyCall);
  });
});

describe('a wait whose charges are all known stays exact', () => {
  it('stopped between polls (--interval longer than --timeout): no unknownCharges, charged is the ledger', async () => {
    const id = await submitted('video');
    const before = await spent();
    const result = await project.run(['video', 'wait', id, '--interval', '10s', '--timeout', '1500ms', '--json']);
    expect(result.code, result.stderr).toBe(7);
    const credits = jsonError(result).credits;
    expect(credits).toEqual({ charged: PRICES.keyCall, refunded: 0, balance: expect.any(Number) });
    expect((await spent()) - before).toBe(credits.charged);
  });

  it('polls with a session (not charged): a held poll leaves nothing unknown, and the ledger takes nothing for it', async () => {
    const id = await submitted('run');
    const env = { ...project.env(), ASSETGEN_SESSION: project.mock.sessionCookie };
    const { result, cost } = await stoppedWhileHeld(['runs', 'wait', id, '--json'], 'getRun', 'timeout', env);
    expect(result.code, result.stderr).toBe(7);
    // Nothing was charged or answered: no credits at all, as before.
    expect(jsonError(result).credits).toBeUndefined();
    expect(cost).toBe(0);
  });
});
