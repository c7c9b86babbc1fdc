// This user's key for the plan cache (src/pipeline/plan-cache.ts): 32 random bytes in the per-user
// state folder, made on first use. Each cache file in a project carries an HMAC of its content
// under it, so a cache this user did not write — committed to a repository, copied from another
// machine, or made by hand — is never trusted, only rebuilt. Unreadable or unwritable: no key, and
// planning works without a cache.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFileSync, writeFileInsideSync } from '../files/confine.js';
import { stateDir, type Env } from './paths.js';

const FILE = 'plan-cache.key';
const KEY_BYTES = 32;

/** The key, made when missing; undefined when it can be neither read nor made. */
export function planCacheKey(env: Env): Buffer | undefined {
  const dir = stateDir(env);
  const file = path.join(dir, FILE);
  try {
    const key = readRegularFileSync(file);
    if (key.length === KEY_BYTES) return key;
  } catch {
    // Missing (or not a regular file): made below, or no cache.
  }
  try {
    const key = crypto.randomBytes(KEY_BYTES);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileInsideSync(dir, FILE, key, file, { mode: 0o600 });
    return key;
  } catch {
    return undefined;
  }
}
