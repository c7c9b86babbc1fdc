// A paid submission whose answer is refused as a protocol error (here a job id past the bound
// assetgen accepts): the service has charged for it, so the error is a paid call's like a lost
// answer's — its Idempotency-Key, and the way to ask again without paying twice — never a bare
// "report it". Against a service with its own ledger.
import { describe, expect, it } from 'vitest';
import { jsonError, runInProcess } from '../support/cli.js';
import { json, useScriptedService } from '../support/http.js';

const scripted = useScriptedService(runInProcess);

describe('a paid answer refused as a protocol error', () => {
  it('video create: the key and how to ask again with it; credits the 180 the headers said (the ledger)', async () => {
    const ledger: number[] = [];
    const keys: string[] = [];
    const result = await scripted.against(
      (_req, res, seen) => {
        keys.push(String(seen.headers['idempotency-key']));
        ledger.push(180);
        return json(
          res,
          202,
          { id: `vid_${'x'.repeat(200)}`, status: 'queued' },
          { 'x-credits-charged': '180', 'x-credits-remaining': '820' },
        );
      },
      ['video', 'create', 'a torch', '--yes', '--no-wait', '--json'],
    );
    expect(result.code).not.toBe(0);
    const error = jsonError(result);
    expect(error.idempotencyKey).toBe(keys[0]);
    expect(error.hint).toContain('The service answered, but its answer could not be used: it may have done this (and charged for it).');
    expect(error.hint).toContain(`--idempotency-key ${keys[0]}`);
    expect(error.credits).toMatchObject({ charged: 180 });
    expect(error.credits.charged).toBe(ledger.reduce((sum, amount) => sum + amount, 0));
  });

  it('an answer refused for an absurd balance (X-Credits-Remaining: -20): its sound charge, 180, is counted (the ledger), with the key', async () => {
    const ledger: number[] = [];
    const result = await scripted.against(
      (_req, res) => {
        ledger.push(180);
        return json(res, 202, { id: 'vid_1', status: 'queued' }, { 'x-credits-charged': '180', 'x-credits-remaining': '-20' });
      },
      ['video', 'create', 'a torch', '--yes', '--no-wait', '--json'],
    );
    expect(result.code).not.toBe(0);
    const error = jsonError(result);
    expect(error.code).toBe('unexpected_response');
    expect(error.idempotencyKey).toEqual(expect.any(String));
    expect(error.credits).toEqual({ charged: 180, refunded: 0, balance: null });
    expect(error.credits.charged).toBe(ledger.reduce((sum, amount) => sum + amount, 0));
  });
});
