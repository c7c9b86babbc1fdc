// Credentials and settings: flag > environment > stored file. Reading is a plain JSON read, so
// commands that only use credentials never load the store's library (conf); writing goes through
// CredentialStore (credential-store.ts).
import path from 'node:path';
import { MissingCredentialsError } from '../client/errors.js';
import { configDir, type Env } from './paths.js';
import { ownFileFailure, readRegularFileSync } from '../files/confine.js';

export const ENV = {
  apiKey: 'ASSETGEN_API_KEY',
  session: 'ASSETGEN_SESSION',
  baseUrl: 'ASSETGEN_BASE_URL',
} as const;

export interface StoredSettings {
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

/** The credentials file's name without `.json`: conf's `configName` in credential-store.ts. */
export const CREDENTIALS_NAME = 'credentials';

/** Path of the credentials file without creating anything (for messages and status). */
export function credentialsFilePath(env: Env = process.env): string {
  // Where conf (credential-store.ts) keeps it: `<cwd>/<configName>.json`, resolved.
  return path.resolve(configDir(env), `${CREDENTIALS_NAME}.json`);
}

/**
 * Resolves credentials and base URL with the documented precedence. The store is only opened when
 * a file exists, so a read never creates directories.
 */
export function resolveCredentials(flags: { baseUrl?: string }, env: Env = process.env): ResolvedCredentials {
  const file = credentialsFilePath(env);
  const stored = readStoredCredentials(file);
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

/**
 * The stored settings, or {} when there is no file. A file that is not a JSON object of strings
 * is named in the error with what to do, instead of failing somewhere later.
 */
export function readStoredCredentials(file: string): StoredSettings {
  let text: string;
  try {
    text = readRegularFileSync(file, file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    const { message, hint } = ownFileFailure('read', 'the credentials file', file, error, {
      moved: '`assetgen auth login` then stores your credentials in a new one.',
      otherwise: 'Check its permissions.',
    });
    throw new MissingCredentialsError(message, hint);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields = ['apiKey', 'sessionCookie', 'baseUrl'] as const;
  const valid =
    parsed !== null &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed) &&
    fields.every((field) => ['undefined', 'string'].includes(typeof (parsed as Record<string, unknown>)[field]));
  if (!valid) {
    // Exit 4 like any missing credential: the fix is the same, `auth login`.
    throw new MissingCredentialsError(
      `The credentials file ${file} is damaged (not a JSON object of strings).`,
      'Run `assetgen auth login` to replace it, or delete the file and log in again.',
    );
  }
  const record = parsed as Record<string, string | undefined>;
  return { apiKey: record.apiKey, sessionCookie: record.sessionCookie, baseUrl: record.baseUrl };
}
