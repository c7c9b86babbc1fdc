// Writes the credentials file: conf keeps it at mode 0600 inside a 0700 directory and writes it
// atomically. Only the commands that store or remove credentials load this (and conf).
import fs from 'node:fs';
import Conf from 'conf';
import { configDir, type Env } from './paths.js';
import type { StoredSettings } from './credentials.js';

export class CredentialStore {
  readonly #conf: Conf<StoredSettings>;

  constructor(env: Env = process.env) {
    const dir = configDir(env);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is ignored for an existing directory; tighten it in case it was made elsewhere.
    if (process.platform !== 'win32') fs.chmodSync(dir, 0o700);
    this.#conf = new Conf<StoredSettings>({
      projectName: 'assetgen',
      cwd: dir,
      configName: 'credentials',
      configFileMode: 0o600,
      // The store exists to be written: a damaged file (named by readStoredCredentials on every
      // read) is replaced by the next `auth login` rather than blocking it.
      clearInvalidConfig: true,
    });
  }

  get path(): string {
    return this.#conf.path;
  }

  read(): StoredSettings {
    return { ...this.#conf.store };
  }

  update(values: StoredSettings): void {
    for (const [key, value] of Object.entries(values) as [keyof StoredSettings, string | undefined][]) {
      if (value === undefined) continue;
      this.#conf.set(key, value);
    }
  }

  remove(keys: (keyof StoredSettings)[]): void {
    for (const key of keys) this.#conf.delete(key);
  }
}
