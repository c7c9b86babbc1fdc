// The plan cache, `.assetgen/cache/` in the project: what planning worked out last time, kept so
// that planning a project where little changed does not work it all out again (as git's index
// keeps each file's stat beside its hash). Three facts, each reused only when it is proved to hold:
// - a file's sha256 and size, while its stat signature (size, mtime and ctime in ns, inode,
//   device) is the one taken on the descriptor it was read from. A file changed within the clock
//   tick of its last change could keep its signature ("racy", in git's words), so a hash is only
//   recorded when the file's mtime and ctime are before a time read from the file system's own
//   clock before the hashing began (fileSystemTimeSync); any later change moves one of them.
// - a manifest's validated assets, while its text (sha256) is the same. A manifest reads no other
//   file (vars, style and matrix are inside it), so its text is everything they depend on.
// - that the lock's text (sha256) passed the lock's checks.
// Each cache file names what it was made by (this cache's format, assetgen's version and its own
// compiled file, node, the platform) and carries an HMAC of its content under this user's key
// (src/config/plan-cache-key.ts): a missing, unreadable, truncated, corrupt, foreign, oversized or
// hand-made cache, or one that is a link or leads outside the project, is ignored and made again;
// one that cannot be written is not. The cache never decides a plan's outcome, and is never an
// error. Deleting the folder is always safe.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { packageVersion } from '../package-info.cjs';
import { platform } from '../platform.js';
import { fileSystemTimeSync, readInsideSync, writeFileInsideSync } from '../files/confine.js';
import { sha256, type FileStamp } from './hash.js';
import { sameStamp } from './stamp.js';
import { checkStampsAhead } from './hash-preload.js';
import type { FileHash } from './records.js';

/** The folder, under the project root (the manifest's folder). */
export const PLAN_CACHE_DIR = '.assetgen/cache';
/** Bumped when what a cache file holds changes shape or meaning. */
const FORMAT = 1;
/** A cache file larger than this is neither read nor written (a manifest's 8 MiB is far below). */
export const PLAN_CACHE_MAX_BYTES = 64 * 2 ** 20;
const FILES = 'files.bin';
/** The header line is short: anything longer is not ours. */
const MAX_HEADER_BYTES = 1024;

/** What counts as the same program: a new build or install of assetgen never reads an old cache. */
let codeId: string | undefined;
function code(): string {
  if (codeId === undefined) {
    let own = '';
    try {
      const stat = fs.statSync(fileURLToPath(import.meta.url), { bigint: true });
      own = `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
    } catch {
      own = 'unknown';
    }
    codeId = `${packageVersion()}/${own}/${process.version}/${platform()}/${FORMAT}`;
  }
  return codeId;
}

/** The validated content of a manifest, as parseManifest gets it from validation. */
export interface CachedManifest {
  assets: unknown[];
  budget?: number;
  prices?: unknown;
  provenance?: unknown;
}

/** The files' record: parallel lists, one place per file (typed arrays deserialise fastest). */
interface FilesBody {
  /** The sha256 of the last lock text that passed its checks. */
  lock?: string;
  paths: string[];
  sha256: string[];
  /** size, mtime ns, ctime ns per file (signed), then inode and device (unsigned). */
  times: BigInt64Array;
  ids: BigUint64Array;
}

/** One file's record: its stamp when hashed, and the hash. */
interface Entry {
  stamp: FileStamp;
  hash: FileHash;
}

const isFilesBody = (body: unknown): body is FilesBody => {
  const { paths, sha256: hashes, times, ids } = (body ?? {}) as Partial<FilesBody>;
  return (
    Array.isArray(paths) &&
    Array.isArray(hashes) &&
    times instanceof BigInt64Array &&
    ids instanceof BigUint64Array &&
    hashes.length === paths.length &&
    times.length === paths.length * 3 &&
    ids.length === paths.length * 2
  );
};

/** What the cache did in one run: read by tests and bench/plan-split.mjs, never by planning. */
export interface PlanCacheStats {
  manifest: 'hit' | 'miss' | 'off';
  lock: 'hit' | 'miss' | 'off';
  /** Files whose recorded hash was reused, and files hashed. */
  trusted: number;
  hashed: number;
  /** Cache files written. */
  written: number;
}

export class PlanCache {
  readonly stats: PlanCacheStats;
  /** Recorded entries not yet looked up: path → its place in `#body`. */
  readonly #recorded = new Map<string, number>();
  #body?: FilesBody;
  /** This run's entries, to write: reused ones (their place in `#body`) and new ones hashed after `#clock`. */
  readonly #kept = new Map<string, Entry | number>();
  #ahead?: ReturnType<typeof checkStampsAhead>;
  #lockChecked?: string;
  #clock?: bigint;
  #dirty = false;
  /** A manifest validated in this run, written by save(): a command that stops before planning writes nothing. */
  #pendingManifest?: { name: string; key: string; content: CachedManifest };

  private constructor(
    private readonly root: string,
    private readonly key: Buffer | undefined,
  ) {
    const state = key ? 'miss' : 'off';
    this.stats = { manifest: state, lock: state, trusted: 0, hashed: 0, written: 0 };
    const body = key && this.#read(FILES);
    if (!isFilesBody(body)) return;
    this.#body = body;
    if (typeof body.lock === 'string') this.#lockChecked = body.lock;
    body.paths.forEach((file, index) => this.#recorded.set(file, index));
  }

  /**
   * The cache of the project at `root`, under this user's `key` (src/config/plan-cache-key.ts);
   * without a key, one that remembers nothing.
   */
  static open(root: string, key: Buffer | undefined): PlanCache {
    return new PlanCache(root, key);
  }

  /** The validated manifest of `text` from the cache, else from `validate` (kept when it has no issues). */
  manifest<T extends CachedManifest & { issues: unknown[] }>(manifestFile: string, text: string, validate: () => T): T {
    if (!this.key) return validate();
    const name = `manifest-${sha256(path.basename(manifestFile)).slice(0, 16)}.bin`;
    const textHash = sha256(text);
    const cached = this.#read(name, textHash) as CachedManifest | undefined;
    if (cached && Array.isArray(cached.assets)) {
      this.stats.manifest = 'hit';
      return { ...cached, issues: [] } as unknown as T;
    }
    const result = validate();
    if (!result.issues.length) {
      const { issues: _issues, ...content } = result;
      this.#pendingManifest = { name, key: textHash, content };
    }
    return result;
  }

  /** Whether this lock text is the one that last passed the lock's checks. */
  lockChecked(text: string | Buffer): boolean {
    if (!this.key) return false;
    const checked = this.#lockChecked === sha256(text);
    if (checked) this.stats.lock = 'hit';
    return checked;
  }

  /** This lock text passed the lock's checks (written with the files' record). */
  noteLockChecked(text: string | Buffer): void {
    if (!this.key) return;
    const hash = sha256(text);
    if (this.#lockChecked !== hash) this.#dirty = true;
    this.#lockChecked = hash;
  }

  /**
   * The recorded hashes of those of `files` (lock paths) whose signature is unchanged: each is
   * stat'ed (links followed, as hashing reads them), never read. The others are left to hash.
   */
  lookUp(files: Iterable<string>): Map<string, FileHash> {
    const body = this.#body;
    const base = this.root + path.sep;
    return this.#adopt(files, (index, file) => sameStamp(base + file, body!.times, body!.ids, index));
  }

  /**
   * Starts comparing every recorded file's stamp on another thread (./hash-preload.ts), while the
   * lock and the manifest are read; lookUpAhead then takes its answer.
   */
  checkAhead(): void {
    const body = this.#body;
    if (body && !this.#ahead)
      this.#ahead = checkStampsAhead({ root: this.root, paths: body.paths, times: body.times, ids: body.ids }, sameStamp);
  }

  /** lookUp, from the thread's answer when checkAhead started one (else, or if it failed, here). */
  async lookUpAhead(files: Iterable<string>): Promise<Map<string, FileHash>> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    const same = await ahead?.results();
    return same ? this.#adopt(files, (index) => same[index] === 1) : this.lookUp(files);
  }

  /** Whether checkAhead started a thread (the lock's files are then not hashed ahead: most are vouched for). */
  get checkingAhead(): boolean {
    return this.#ahead !== undefined;
  }

  /** Ends the thread checkAhead started, if it is still at work. */
  stop(): void {
    this.#ahead?.stop();
    this.#ahead = undefined;
  }

  /** The recorded hashes of those of `files` that `unchanged` vouches for; each recorded file is looked at once. */
  #adopt(files: Iterable<string>, unchanged: (index: number, file: string) => boolean): Map<string, FileHash> {
    const trusted = new Map<string, FileHash>();
    const body = this.#body;
    if (!body) return trusted;
    for (const file of files) {
      const index = this.#recorded.get(file);
      if (index === undefined) continue;
      this.#recorded.delete(file);
      if (unchanged(index, file)) {
        const hash = { sha256: body.sha256[index], size: Number(body.times[index * 3]) };
        trusted.set(file, hash);
        this.#kept.set(file, index);
      } else this.#dirty = true;
    }
    this.stats.trusted += trusted.size;
    return trusted;
  }

  /** Call before hashing anything that will be recorded: the moment a change must come after. */
  beginHashing(): void {
    if (!this.key || this.#clock !== undefined) return;
    try {
      this.#clock = fileSystemTimeSync(this.root, PLAN_CACHE_DIR);
    } catch {
      // No folder for the cache (a link out of the project, a read-only checkout): nothing is recorded.
      this.#clock = -1n;
    }
  }

  /** A file hashed (after beginHashing) from the descriptor `stamp` was taken on. */
  record(file: string, hash: FileHash | null, stamp: FileStamp | undefined): void {
    this.stats.hashed++;
    // Changed in or after the tick hashing began: its signature could survive one more change. Hashed again next time.
    if (!hash || !stamp || this.#clock === undefined || stamp.mtimeNs >= this.#clock || stamp.ctimeNs >= this.#clock) return;
    // Read while it changed size: its next stat will differ anyway.
    if (BigInt(hash.size) !== stamp.size) return;
    this.#kept.set(file, { stamp, hash });
    this.#dirty = true;
  }

  /**
   * Writes what this run learned: a manifest validated, and the files' record when it changed
   * (every entry of this run; those not looked up are dropped). Called once the plan has its hashes.
   */
  save(): void {
    if (!this.key) return;
    if (this.#pendingManifest) {
      const { name, key, content } = this.#pendingManifest;
      this.#write(name, key, content);
      this.#pendingManifest = undefined;
    }
    if (this.#recorded.size) this.#dirty = true;
    if (!this.#dirty) return;
    const count = this.#kept.size;
    const body: FilesBody = {
      lock: this.#lockChecked,
      paths: [],
      sha256: [],
      times: new BigInt64Array(count * 3),
      ids: new BigUint64Array(count * 2),
    };
    let index = 0;
    const old = this.#body;
    for (const [file, entry] of this.#kept) {
      body.paths.push(file);
      if (typeof entry === 'number') {
        body.sha256.push(old!.sha256[entry]);
        body.times.set(old!.times.subarray(entry * 3, entry * 3 + 3), index * 3);
        body.ids.set(old!.ids.subarray(entry * 2, entry * 2 + 2), index * 2);
      } else {
        const { stamp, hash } = entry;
        body.sha256.push(hash.sha256);
        body.times.set([stamp.size, stamp.mtimeNs, stamp.ctimeNs], index * 3);
        body.ids.set([stamp.ino, stamp.dev], index * 2);
      }
      index++;
    }
    this.#write(FILES, '', body);
    this.#recorded.clear();
    this.#dirty = false;
  }

  /** A cache file's content, or undefined unless it is ours, whole, for this program and for `key`. */
  #read(name: string, key = ''): unknown {
    try {
      const bytes = readInsideSync(this.root, path.join(PLAN_CACHE_DIR, name), PLAN_CACHE_MAX_BYTES);
      if (!bytes) return undefined;
      const newline = bytes.subarray(0, MAX_HEADER_BYTES).indexOf(10);
      if (newline < 0) return undefined;
      const header = JSON.parse(bytes.toString('utf8', 0, newline)) as Record<string, unknown>;
      const body = bytes.subarray(newline + 1);
      if (header.code !== code() || header.key !== key || typeof header.mac !== 'string') return undefined;
      const mac = Buffer.from(header.mac, 'hex');
      const expected = this.#mac(name, key, body);
      if (mac.length !== expected.length || !crypto.timingSafeEqual(mac, expected)) return undefined;
      return v8.deserialize(body);
    } catch {
      return undefined;
    }
  }

  #write(name: string, key: string, content: unknown): void {
    try {
      const body = v8.serialize(content);
      if (body.length > PLAN_CACHE_MAX_BYTES - MAX_HEADER_BYTES) return;
      const header = JSON.stringify({ code: code(), key, mac: this.#mac(name, key, body).toString('hex') });
      writeFileInsideSync(this.root, path.join(PLAN_CACHE_DIR, name), Buffer.concat([Buffer.from(`${header}\n`), body]));
      this.stats.written++;
    } catch {
      // Only a cache: the plan stands without it.
    }
  }

  /** The HMAC binds the content to its file's name and key too: one file's content is never read as another's. */
  #mac(name: string, key: string, body: Buffer): Buffer {
    return crypto.createHmac('sha256', this.key!).update(`${code()}\n${name}\n${key}\n`).update(body).digest();
  }
}
