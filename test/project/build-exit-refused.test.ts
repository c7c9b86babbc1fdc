// A build the service refuses: credentials (401/403, exit 4) or credits (402, exit 5), told apart
// from a flaky asset (exit 1) by CI. After the first refusal no other asset is started (each one
// `skipped`, nothing more sent or charged: the mock's request count and ledger say so); a paid
// call refused outright leaves nothing pending in the lock, and the next build simply submits it;
// a call whose earlier answer was lost stays resumable with its key whatever the refusal.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, InsufficientCreditsError } from '../../src/client/errors.js';
import type { CommandContext } from '../../src/cli/context.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { CLI } from '../../src/cli/front-end.js';
import { settleRun } from '../../src/commands/project/run-result.js';
import type { BuildRun } from '../../src/commands/project/records.js';
import { readLock } from '../../src/pipeline/lock.js';
import { totalsOf, type AssetOutcome, type AssetResult } from '../../src/pipeline/outcome.js';
import { jsonError, parseJson, type CliResult } from '../support/cli.js';
import { netSpend } from '../support/ledger.js';
import { useMockProject } from '../support/project.js';
import { writeFiles } from './helpers.js';
import { until } from '../support/until.js';

const project = useMockProject({ mock: { credits: 100_000 }, config: { credits: 100_000, faults: { rate: 0 } } });
const icons = (n: number, extra = ''): string =>
  Array.from({ length: n }, (_, i) => `  - { id: a${i + 1}, prompt: icon number ${i + 1}${extra} }`).join('\n');
const write = (body: string): void =>
  writeFiles(project.cwd, { 'assetgen.yaml': `defaults: { agent: icon-forge, out: assets/ }\nassets:\n${body}\n` });
const lock = () => readLock(path.join(project.cwd, 'assetgen.lock'));
const items = (result: CliResult) =>
  parseJson(result).items as { id: string; outcome: string; credits: number; reason?: string; resume?: string }[];
const outcomes = (result: CliResult) => Object.fromEntries(items(result).map((item) => [item.id, item.outcome]));
const requests = async (): Promise<number> => (await project.mock.state()).requests as number;
const BAD_KEY = `agk_${'0'.repeat(40)}`;

describe('the service refuses the credentials: exit 4', () => {
  it('an unknown key: the first answer stops the build, nothing else is sent, the lock keeps nothing pending', async () => {
    write(icons(4));
    const before = await requests();
    const result = await project.run(['build', '-j', '1', '--json'], { env: { ...project.env(), ASSETGEN_API_KEY: BAD_KEY } });
    expect(result.code, result.stderr).toBe(EXIT.auth);
    expect(await requests()).toBe(before + 1);
    expect(await project.ledger()).toEqual([]);
    expect(jsonError(result)).toMatchObject({ message: 'Unknown API key.', exitCode: 4, status: 401 });
    expect(jsonError(result).hint).toMatch(/started no asset after this answer/);
    expect(outcomes(result)).toEqual({ a1: 'failed', a2: 'skipped', a3: 'skipped', a4: 'skipped' });
    expect(items(result)[0]).not.toHaveProperty('resume');
    expect(items(result)[1]!.reason).toBe('not started: the service refused the credentials');
    expect(parseJson(result).totals).toMatchObject({ failed: 1, skipped: 3, credits: 0 });
    // Refused outright: not `in-flight`, so the next build submits it afresh (and the rest with it).
    expect(Object.values(lock().assets).filter((entry) => entry.job)).toEqual([]);
    const plan = parseJson(await project.run(['build', '--dry-run', '--json']));
    expect((plan.items as { status: string }[]).map((item) => item.status)).toEqual(['new', 'new', 'new', 'new']);
    const again = await project.run(['build', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson(again).totals).toMatchObject({ built: 4 });
    expect(netSpend(await project.ledger())).toBe(40);
  });

  it('people see the refused asset, the others not started, and the service message as the error', async () => {
    write(icons(3));
    const result = await project.run(['build', '-j', '1'], { env: { ...project.env(), ASSETGEN_API_KEY: BAD_KEY } });
    expect(result.code, result.stderr).toBe(EXIT.auth);
    expect(result.stderr).toMatch(/^✗ a1 {2}failed: Unknown API key\.$/m);
    expect(result.stderr).toMatch(/^- a2 {2}skipped: not started: the service refused the credentials$/m);
    expect(result.stderr).toMatch(/^error: Unknown API key\.$/m);
    expect(result.stderr).not.toMatch(/assets? failed/);
  });

  it('a key revoked while a run is polled: its job stays in the lock, and after the 401 no request is made or charged', async () => {
    const { json } = await project.mock.call('POST', '/__mock/keys', { auth: 'none' });
    const key = (json as { apiKey: string }).apiKey;
    write(['  - { id: hero, workflow: wf_sprite_sheet, set: { character: a dwarf miner }, out: assets/hero/ }', icons(3)].join('\n'));
    await project.mock.hold(['getRun']);
    const build = project.run(['build', '-j', '1', '--yes', '--json'], { env: { ...project.env(), ASSETGEN_API_KEY: key } });
    await until('the first poll held', async () => (await project.mock.state()).held >= 1);
    const charged = (await project.ledger()).length;
    const sent = await requests();
    expect((await project.mock.call('POST', '/__mock/keys/revoke', { auth: 'none', body: { apiKey: key } })).status).toBe(200);
    await project.mock.hold([]);
    const result = await build;
    expect(result.code, result.stderr).toBe(EXIT.auth);
    // The held poll (counted as it arrived, then refused) and nothing after it.
    expect(await requests()).toBe(sent);
    expect((await project.ledger()).length).toBe(charged);
    expect(outcomes(result)).toEqual({ hero: 'failed', a1: 'skipped', a2: 'skipped', a3: 'skipped' });
    expect(jsonError(result)).toMatchObject({ exitCode: 4, status: 401 });
    // The run was paid and exists: kept with its id, for the next build (with a valid key) to resume.
    expect(items(result)[0]!.resume).toMatch(/assetgen build hero/);
    expect(lock().assets.hero!.job).toMatchObject({ jobId: expect.stringMatching(/^run_/) });
    const resumed = await project.run(['build', '--yes', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(outcomes(resumed)).toMatchObject({ hero: 'resumed', a1: 'built', a2: 'built', a3: 'built' });
  });
});

describe('the account runs out of credits: exit 5', () => {
  it('15 credits, three 10-credit images at once: one built, two refused, none left in flight in the lock; topped up, the next build makes those two', async () => {
    write(icons(3));
    await project.mock.config({ credits: 15 });
    const result = await project.run(['build', '--json']);
    expect(result.code, result.stderr).toBe(EXIT.insufficientCredits);
    expect(jsonError(result)).toMatchObject({ code: 'insufficient_credits', exitCode: 5, status: 402 });
    const byOutcome = items(result).map((item) => item.outcome);
    expect(byOutcome.filter((outcome) => outcome === 'built')).toHaveLength(1);
    expect(byOutcome.filter((outcome) => outcome === 'failed')).toHaveLength(2);
    expect(items(result).filter((item) => item.resume)).toEqual([]);
    expect(netSpend(await project.ledger())).toBe(10);
    const refused = items(result)
      .filter((item) => item.outcome === 'failed')
      .map((item) => item.id);
    const assets = lock().assets;
    for (const id of refused) expect(assets[id]?.job).toBeUndefined();
    const plan = parseJson(await project.run(['build', '--dry-run', '--json']));
    const statuses = Object.fromEntries((plan.items as { id: string; status: string }[]).map((item) => [item.id, item.status]));
    for (const id of refused) expect(statuses[id]).toBe('new');

    await project.mock.config({ credits: 1_000 });
    const again = await project.run(['build', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson(again).totals).toMatchObject({ built: 2, unchanged: 1, resumed: 0 });
    expect(netSpend(await project.ledger())).toBe(30);
  });

  it('one at a time: the first 402 is the last paid call, the rest are not started', async () => {
    write(icons(5));
    await project.mock.config({ credits: 15 });
    const before = await requests();
    const result = await project.run(['build', '-j', '1', '--json']);
    expect(result.code, result.stderr).toBe(EXIT.insufficientCredits);
    expect(await requests()).toBe(before + 2);
    expect(outcomes(result)).toEqual({ a1: 'built', a2: 'failed', a3: 'skipped', a4: 'skipped', a5: 'skipped' });
    expect(items(result)[2]!.reason).toBe('not started: the account has too few credits');
  });

  it('a call whose earlier answer was lost stays resumable with its key when the replay gets a 402', async () => {
    write(icons(1));
    await project.mock.config({ faults: { rate: 1, kinds: ['500'] } });
    const lost = await project.run(['build', '--json']);
    expect(lost.code, lost.stderr).toBe(EXIT.error);
    const key = lock().assets.a1!.job!.idempotencyKey;
    expect(key).toBeTruthy();

    await project.mock.config({ faults: { rate: 0 }, credits: 0 });
    const refused = await project.run(['build', '--json']);
    expect(refused.code, refused.stderr).toBe(EXIT.insufficientCredits);
    expect(items(refused)[0]).toMatchObject({ outcome: 'failed', resume: expect.stringMatching(/assetgen build a1/) });
    expect(lock().assets.a1!.job).toMatchObject({ idempotencyKey: key });

    await project.mock.config({ credits: 1_000 });
    const resumed = await project.run(['build', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(outcomes(resumed)).toEqual({ a1: 'resumed' });
    expect((await project.ledger()).map((entry) => entry.idempotencyKey)).toEqual([key]);
  });

  it('takes: a 402 between takes keeps the takes made (the last one as its job); the next build makes only the missing take', async () => {
    write(icons(1, ', variants: 3'));
    await project.mock.config({ credits: 25 });
    const result = await project.run(['build', '--json']);
    expect(result.code, result.stderr).toBe(EXIT.insufficientCredits);
    expect(items(result)[0]).toMatchObject({ outcome: 'failed', credits: 20, resume: expect.stringMatching(/assetgen build a1/) });
    const entry = lock().assets.a1!;
    expect(entry.candidates?.map((take) => take.k)).toEqual([1, 2]);
    expect(entry.job).toMatchObject({ take: 2 });

    await project.mock.config({ credits: 1_000 });
    const resumed = await project.run(['build', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lock().assets.a1!.candidates?.map((take) => take.k)).toEqual([1, 2, 3]);
    expect(netSpend(await project.ledger())).toBe(30);
  });
});

describe('precedence of the exit codes', () => {
  const ctx = (aborted = false): CommandContext => {
    const controller = new AbortController();
    if (aborted) controller.abort();
    return { signal: controller.signal, out: { json: true }, frontEnd: CLI } as unknown as CommandContext;
  };
  const build = (outcomes: AssetOutcome[], refused?: BuildRun['refused']): BuildRun => {
    const list: AssetResult[] = outcomes.map((outcome, i) => ({
      id: `a${i}`,
      status: 'new',
      outcome,
      files: [],
      credits: 0,
      ...(outcome === 'capped' ? { cap: 'over-cap' as const } : {}),
    }));
    return {
      manifest: 'm',
      lock: 'l',
      service: 's',
      items: list,
      totals: totalsOf(list),
      maxCredits: 10,
      credits: { charged: 0, refunded: 0, balance: null },
      ...(refused ? { refused } : {}),
    };
  };
  const exitOf = (result: BuildRun, aborted = false): number => {
    try {
      settleRun(ctx(aborted), result);
      return EXIT.ok;
    } catch (error) {
      return exitCodeFor(error);
    }
  };
  const auth = () => new AuthenticationError('Unknown API key.', { status: 401 });
  const credits = () => new InsufficientCreditsError('Not enough credits.', { status: 402 });

  it('Ctrl-C first (130), then the refusal (4, 5), then a failure (1), then the cap (8)', () => {
    expect(exitOf(build(['failed', 'capped', 'skipped'], auth()))).toBe(EXIT.auth);
    expect(exitOf(build(['built', 'failed', 'capped', 'skipped'], credits()))).toBe(EXIT.insufficientCredits);
    expect(exitOf(build(['failed', 'skipped'], credits()), true)).toBe(EXIT.interrupted);
    expect(exitOf(build(['built', 'failed', 'capped']))).toBe(EXIT.error);
    expect(exitOf(build(['built', 'capped']))).toBe(EXIT.creditCap);
  });

  it('the refusal is left out of the --json document (its error line says it)', async () => {
    const { runDocument } = await import('../../src/commands/project/run-result.js');
    expect(runDocument(build(['failed'], auth()))).not.toHaveProperty('refused');
  });
});
