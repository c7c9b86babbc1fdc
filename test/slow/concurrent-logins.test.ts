// Two `auth login`s at once (real processes) both keep their credential: the store's
// read-modify-write runs under a lock. Before the lock, 5 of 50 rounds lost one.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

describe('concurrent logins', () => {
  it('keep both credentials in each of 30 rounds', async () => {
    const file = path.join(home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json');
    for (let round = 0; round < 30; round++) {
      fs.rmSync(file, { force: true });
      const key = `agk_round${round}_${'k'.repeat(24)}`;
      const cookie = `ag_session=round${round}${'c'.repeat(24)}`;
      const results = await Promise.all([
        runCli(['auth', 'login', '--with-key', '--no-verify'], { env: home.env, cwd: home.cwd, input: key }),
        runCli(['auth', 'login', '--session', '--no-verify'], { env: home.env, cwd: home.cwd, input: cookie }),
      ]);
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ apiKey: key, sessionCookie: cookie });
    }
  });
});
