// Hashes: of files (what the lock records and planning compares), of specs (what decides an
// asset's output), and the stable JSON both rest on. Key order never changes a hash or a lockfile.
import crypto, { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openRegularSync, streamRegularFile } from '../files/confine.js';
import type { FileHash, ManifestAsset } from './records.js';
import { isWindows } from '../platform.js';

export function sha256(data: string | Uint8Array): string {
  return crypto.hash('sha256', data, 'hex');
}

/** JSON with object keys sorted at every level (arrays keep their order); `undefined` is dropped. */
export function stableStringify(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) sorted[key] = sortKeys(item);
  }
  return sorted;
}

/** Bumped when the meaning of a spec changes, so every asset is seen as changed once. */
const SPEC_VERSION = 1;

/**
 * Everything that decides what the service makes for an asset: its kind, agent or workflow,
 * prompt, overrides and the service host. Not `out`: moving an output is not a new asset.
 * Prompts are trimmed, as a YAML block scalar's trailing newline is not part of the idea. Keys are
 * in sorted order (and `set`'s sorted), so JSON.stringify writes what stableStringify would,
 * without a sort per asset: planning hashes the spec of every asset.
 */
export function assetSpec(asset: ManifestAsset, service: string): Record<string, unknown> {
  return {
    agent: asset.agent,
    aspectRatio: asset.aspectRatio,
    duration: asset.duration,
    kind: asset.kind,
    prompt: asset.prompt?.trim(),
    service,
    set: asset.set && sortKeys(asset.set),
    v: SPEC_VERSION,
    workflow: asset.workflow,
  };
}

/**
 * The service part of a spec: the base URL's host (and path prefix, if any), never its scheme,
 * user or password. `mock` for the bundled in-process mock, whose port changes on every run.
 */
export function serviceId(baseUrl: string | undefined, mock = false): string {
  if (mock) return 'mock';
  if (!baseUrl) return '';
  try {
    const url = new URL(baseUrl);
    return `${url.host}${url.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return baseUrl;
  }
}

/**
 * A short fingerprint of each part of an asset's spec but those the lock records whole (kind,
 * agent, workflow, service), kept beside the spec hash: when the hash differs, planning names the
 * parts that changed ("prompt", "service: mock → …") instead of a bare "spec changed". Only what
 * is defined: an absent part and a later-defined one differ by the key's presence.
 */
export function specParts(asset: ManifestAsset): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const [name, value] of Object.entries(assetSpec(asset, ''))) {
    if (value === undefined || RECORDED_WHOLE.has(name)) continue;
    parts[name] = sha256(JSON.stringify(value)).slice(0, SPEC_PART_HEX);
  }
  return parts;
}

/** Recorded whole by the entry (kind, agent, workflow, service), or the same for every asset (v). */
const RECORDED_WHOLE = new Set(['kind', 'agent', 'workflow', 'service', 'v']);
/** 48 bits of sha256: enough to tell an edit from none, short enough for 10,000 entries. */
const SPEC_PART_HEX = 12;

export function specHash(asset: ManifestAsset, service: string): string {
  return sha256(JSON.stringify(assetSpec(asset, service)));
}

/**
 * The Idempotency-Key of an asset's paid call: derived from what it makes (id, spec hash) and its
 * generation, so two machines building the same spec at once send the same key and pay once
 * (where the service honours keys), while a deliberate regeneration is a new generation, a new key.
 * Each take of an asset with takes (records.ts LockedTake) has its own key.
 */
export function idempotencyKeyFor(id: string, spec: string, generation: number, take = 1): string {
  // Take 1 keeps the key of a single-take asset: giving a built asset `variants` makes its finish
  // take 1, and only the new takes are paid for.
  const takePart = take === 1 ? '' : `\u0000take ${take}`;
  return `assetgen-${sha256(`${id}\u0000${spec}\u0000${generation}${takePart}`).slice(0, 40)}`;
}

/** Files up to this size are hashed from one synchronous read; larger ones (videos) are streamed. */
const WHOLE_FILE_MAX_BYTES = 1 << 20;

/** The sha256 and size of a file (streamed when large); null when it is not a readable file. */
export async function hashFile(file: string): Promise<FileHash | null> {
  return (await hashFileStamped(file, false))?.hash ?? null;
}

/**
 * A file's stat signature (./plan-cache.ts): what changes when its content may have — size, mtime
 * and ctime in nanoseconds (an edit that restores the mtime still moves the ctime), inode and
 * device (a file replaced by another). Kept as the values themselves: a plan compares 10,000.
 */
export interface FileStamp {
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
  dev: bigint;
}

export const fileStamp = ({ size, mtimeNs, ctimeNs, ino, dev }: fs.BigIntStats): FileStamp => ({ size, mtimeNs, ctimeNs, ino, dev });

/** A file's hash with the stamp of the very descriptor it was read from (stamp absent unless asked for). */
export interface StampedHash {
  hash: FileHash;
  stamp?: FileStamp;
}

/** hashFile, and with `stamped` the file's stamp taken on the descriptor read (no gap for a swap between the two). */
export async function hashFileStamped(file: string, stamped = true): Promise<StampedHash | null> {
  const small = hashSmallFile(file, stamped);
  if (small !== 'large') return small;
  const hash = createHash('sha256');
  let size = 0;
  let stamp: FileStamp | undefined;
  try {
    const stream = streamRegularFile(file);
    // The descriptor streamRegularFile opened (and checked) is the stream's own.
    if (stamped) stamp = fileStamp(fs.fstatSync((stream as unknown as { fd: number }).fd, { bigint: true }));
    for await (const chunk of stream) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  } catch {
    return null;
  }
  return { hash: { sha256: hash.digest('hex'), size }, ...(stamp ? { stamp } : {}) };
}

/**
 * Most assets are small, and read synchronously: a file in the page cache takes less time to
 * read than four trips through libuv's thread pool (open, stat, read, close) take to schedule —
 * hashing 10,000 assets took 0.7 s asynchronously, 0.1 s like this. Into one reused buffer, with
 * one stat (readFileSync(fd) stats again and allocates per file). 'large' when it must stream.
 */
function hashSmallFile(file: string, stamped: boolean): StampedHash | null | 'large' {
  let fd: number;
  let stat: fs.Stats;
  try {
    // Never blocks on a FIFO, and is refused unless a regular file (src/files/confine.ts): not a readable file.
    ({ fd, stat } = openRegularSync(file));
  } catch {
    return null;
  }
  try {
    if (stat.size > WHOLE_FILE_MAX_BYTES) return 'large';
    const stamp = stamped ? fileStamp(fs.fstatSync(fd, { bigint: true })) : undefined;
    smallFileBuffer ??= Buffer.allocUnsafe(WHOLE_FILE_MAX_BYTES);
    // Up to the size it had when stat'ed, as readFileSync reads a regular file.
    let size = 0;
    for (let read = -1; read !== 0 && size < stat.size; size += read) read = fs.readSync(fd, smallFileBuffer, size, stat.size - size, null);
    const hash = { sha256: crypto.hash('sha256', smallFileBuffer.subarray(0, size), 'hex'), size };
    return stamp ? { hash, stamp } : { hash };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

let smallFileBuffer: Buffer | undefined;

/**
 * A path as the lock writes it: relative to the project root, with forward slashes on every system
 * (a lock made on Windows reads the same on macOS and Linux). The path flavour follows the platform
 * module, so tests can check Windows paths anywhere.
 */
export function lockPath(root: string, file: string): string {
  const native = isWindows() ? path.win32 : path.posix;
  return native.relative(root, native.resolve(root, file)).split(native.sep).join('/');
}

/**
 * Hashes each of `paths` (lock paths, relative to `root`), a few at a time; missing ones map to
 * null. With `stamps`, each file's stamp is put there too (for the plan cache).
 */
export async function hashFiles(
  root: string,
  paths: Iterable<string>,
  concurrency = 8,
  stamps?: Map<string, FileStamp>,
): Promise<Map<string, FileHash | null>> {
  const queue = [...new Set(paths)];
  const result = new Map<string, FileHash | null>();
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const hashed = await hashFileStamped(path.join(root, next), stamps !== undefined);
      result.set(next, hashed?.hash ?? null);
      if (hashed?.stamp) stamps!.set(next, hashed.stamp);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  return result;
}

/**
 * The lock's record of files the build loop just saved (absolute or root-relative paths); `known`
 * holds hashes taken while saving (by absolute path), and only the others are read back.
 */
export async function describeFiles(
  root: string,
  files: string[],
  known: ReadonlyMap<string, FileHash> = new Map(),
): Promise<{ path: string; sha256: string; size: number }[]> {
  const described = [];
  for (const file of files) {
    const absolute = path.resolve(root, file);
    const hash = known.get(absolute) ?? (await hashFile(absolute));
    if (!hash) throw new Error(`${file} was saved but cannot be read back`);
    described.push({ path: lockPath(root, file), ...hash });
  }
  return described;
}
