// A paid submission whose every answer is cut after its headers said it was charged: the retries
// are replays (same Idempotency-Key), so only the first attempt's headers told the charge. (Each
// retry is asked of the cap first: were the key not honoured, it would be charged again.) The
// client reports it when the call finally fails (ChargedAnswerLostError), so the build counts it
// against --max-credits at any -j, and its summary and --json say what the ledger says; the next
// build resumes those assets by their keys for no second charge.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson } from '../support/cli.js';
import { useMockProject } from '../support/project.js';

const project = useMockProject({ mock: { credits: 10_000 }, config: { credits: 10_000 } });
const spent = async (): Promise<number> => -(await project.ledger()).reduce((sum, entry) => sum + entry.amount, 0);

describe('paid submissions whose answers are all lost', () => {
  for (const jobs of ['1', '16']) {
    it(`-j ${jobs}: the ledger stops at --max-credits 30, every figure is the ledger's, and the next build pays only for the rest`, async () => {
      const manifest = ['prices: { agents: { icon-forge: 10 } }', 'defaults: { agent: icon-forge, out: assets/ }', 'assets:'];
      for (let i = 1; i <= 8; i++) manifest.push(`  - { id: a${i}, prompt: lost item ${i} at -j ${jobs} }`);
      const dir = fs.mkdtempSync(path.join(project.home.home, `j${jobs}-`));
      fs.writeFileSync(path.join(dir, 'assetgen.yaml'), `${manifest.join('\n')}\n`);
      const before = await spent();

      await project.mock.config({ faults: { rate: 1, kinds: ['truncate'] } });
      const cut = await project.run(['build', '--yes', '--json', '-j', jobs, '--max-credits', '30'], { cwd: dir });
      await project.mock.config({ faults: { rate: 0, kinds: ['truncate'] } });
      expect(await spent()).toBe(before + 30);
      const document = parseJson(cut);
      expect(document.credits.charged).toBe(30);
      const items = document.items as { outcome: string; credits: number }[];
      // Three paid (their answers lost): failed, or capped when the cap could not also hold the
      // retry (free only if the service honours the key: it is asked of the cap first).
      const paidFor = items.filter((item) => item.credits === 10);
      expect(paidFor).toHaveLength(3);
      for (const item of paidFor) expect(['failed', 'capped']).toContain(item.outcome);
      expect(items.filter((item) => item.credits === 0).map((item) => item.outcome)).toEqual(Array(5).fill('capped'));
      expect(cut.code, cut.stderr).toBe(paidFor.some((item) => item.outcome === 'failed') ? 1 : 8);

      const rest = await project.run(['build', '--yes', '--json', '-j', jobs], { cwd: dir });
      expect(rest.code, rest.stderr).toBe(0);
      expect(await spent()).toBe(before + 80);
      expect(parseJson(rest).credits.charged).toBe(50);
      const lock = readLock(path.join(dir, 'assetgen.lock'));
      expect(Object.values(lock.assets).map((entry) => entry.credits)).toEqual(Array(8).fill(10));
    });
  }
});
