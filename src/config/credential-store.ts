// Writes the credentials file: conf keeps it at mode 0600 inside a 0700 directory and writes it
// atomically. Only the commands that store or remove credentials load this (and conf).
import fs from 'node:fs';
import Conf from 'conf';
import { configDir, type Env } from './paths.js';
import { isWindows } from '../platform.js';
import { CREDENTIALS_NAME, readStoredCredentials, type StoredSettings } from './credentials.js';

const LOCK_WAIT_MS = 5_000;
/** A lock older than this was left by a process that died; it is broken. */
const LOCK_STALE_MS = 10_000;

/**
 * Runs `fn` while holding `<file>.lock` (a directory: mkdir is atomic), so two `auth login`s at
 * once each add their credential instead of one overwriting the other's read-modify-write.
 */
function withFileLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by another assetgen process; try again.`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export class CredentialStore {
  readonly #conf: Conf<StoredSettings>;

  constructor(env: Env = process.env) {
    const dir = configDir(env);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is ignored for an existing directory; tighten it in case it was made elsewhere.
    if (!isWindows()) fs.chmodSync(dir, 0o700);
    this.#conf = new Conf<StoredSettings>({
      projectName: 'assetgen',
      cwd: dir,
      configName: CREDENTIALS_NAME,
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

  /** Sets the given values, keeping the others; a damaged file is replaced. */
  update(values: StoredSettings): void {
    withFileLock(this.path, () => {
      try {
        readStoredCredentials(this.path);
      } catch {
        this.#conf.clear();
      }
      const next = { ...this.#conf.store };
      for (const [key, value] of Object.entries(values) as [keyof StoredSettings, string | undefined][]) {
        if (value !== undefined) next[key] = value;
      }
      this.#conf.store = next;
    });
  }

  remove(keys: (keyof StoredSettings)[]): void {
    withFileLock(this.path, () => {
      for (const key of keys) this.#conf.delete(key);
    });
  }
}
