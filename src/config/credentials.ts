// Credentials and settings: flag > environment > stored file. The file is written by conf at mode
// 0600 inside a 0700 directory; nothing else in assetgen ever writes a secret to disk.
import fs from 'node:fs';
import Conf from 'conf';
import { configDir, type Env } from './paths.js';

export const ENV = {
  apiKey: 'ASSETGEN_API_KEY',
  session: 'ASSETGEN_SESSION',
  baseUrl: 'ASSETGEN_BASE_URL',
} as const;

interface StoredSettings {
  apiKey?: string;
  sessionCookie?: string;
  baseUrl?: string;
}

export interface Sourced<T> {
  value: T;
  /** `flag`, `env` or `file`. */
  source: 'flag' | 'env' | 'file';
  /** The env var name or the file path the value came from. */
  location: string;
}

export interface ResolvedCredentials {
  apiKey?: Sourced<string>;
  sessionCookie?: Sourced<string>;
  baseUrl?: Sourced<string>;
  /** Path of the stored credentials file (whether or not it exists). */
  file: string;
}

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

/** Path of the credentials file without creating anything (for messages and status). */
export function credentialsFilePath(env: Env = process.env): string {
  return `${configDir(env)}/credentials.json`;
}

/**
 * Resolves credentials and base URL with the documented precedence. The store is only opened when
 * a file exists, so a read never creates directories.
 */
export function resolveCredentials(flags: { baseUrl?: string }, env: Env = process.env): ResolvedCredentials {
  const file = credentialsFilePath(env);
  const stored: StoredSettings = fs.existsSync(file) ? new CredentialStore(env).read() : {};
  const pick = (envName: string, storedValue: string | undefined): Sourced<string> | undefined => {
    const fromEnv = env[envName]?.trim();
    if (fromEnv) return { value: fromEnv, source: 'env', location: envName };
    if (storedValue) return { value: storedValue, source: 'file', location: file };
    return undefined;
  };
  const baseUrl: Sourced<string> | undefined = flags.baseUrl
    ? { value: flags.baseUrl, source: 'flag', location: '--base-url' }
    : pick(ENV.baseUrl, stored.baseUrl);
  return {
    apiKey: pick(ENV.apiKey, stored.apiKey),
    sessionCookie: pick(ENV.session, stored.sessionCookie),
    baseUrl,
    file,
  };
}

/** `agk_live_…abcd`: enough to recognise a key, never enough to use it. */
