// Where the credentials live is one fact: credentialsFilePath (what install and status show, what
// every command reads) is the file CredentialStore (conf) writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/config/credential-store.js';
import { credentialsFilePath, readStoredCredentials } from '../../src/config/credentials.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the credentials file', () => {
  it('is where the store writes it, named the same way from a relative config folder too', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-credentials-'));
    dirs.push(root);
    for (const dir of [path.join(root, 'abs'), path.relative(process.cwd(), path.join(root, 'rel'))]) {
      const env = { HOME: root, ASSETGEN_CONFIG_DIR: dir };
      const store = new CredentialStore(env);
      store.update({ apiKey: 'agk_test' });
      expect(store.path).toBe(credentialsFilePath(env));
      expect(readStoredCredentials(credentialsFilePath(env)).apiKey).toBe('agk_test');
    }
  });
});
