// The lockfile, assetgen.lock: what assetgen made for each asset, next to the manifest and meant to
// be committed. JSON with a stable key order (a rebuild that changes nothing changes no byte), one
// entry per asset, written atomically; during a build, only through one LockWriter (./writer.ts).
// Written by the confinement rule inside the lock's own folder (never through a link), read only
// when it is a regular file (a FIFO there is refused, never waited on).
import fs from 'node:fs';
import path from 'node:path';
import { NotRegularFileError, PathRefusedError, readRegularFileSync, writeFileInside, writeFileInsideSync } from '../files/confine.js';
import { LockError } from './errors.js';
import { stableStringify } from './hash.js';
import { LOCK_VERSION, type Lock, type LockedFile, type LockEntry } from './records.js';
import { compareProjectPaths, isProjectPath } from './paths.js';
import { SAFE_ID } from '../api/endpoints.js';
import { applyRecord, journalFileFor, readJournal } from './lock-journal.js';
import type { PlanCache } from './plan-cache.js';
import { jsonSyntaxProblem } from '../files/json-problem.js';
import { ASSET_ID } from './validate.js';

export const LOCK_FILE = 'assetgen.lock';
const KINDS = ['image', 'workflow', 'video', 'sheet'];
/** An entry's optional text fields. */
const STRING_FIELDS = ['agent', 'workflow', 'spec', 'finishedAt', 'jobId', 'service', 'post'];

export const emptyLock = (): Lock => ({ lockfileVersion: LOCK_VERSION, assets: {} });

/**
 * Whose lock a file is, for what to do when it is not valid JSON: the project's assetgen.lock, a
 * shard's `--lock-out` lock its next build starts from, or a shard's lock named to `lock merge`.
 */
export type LockRole = 'project' | 'lock-out' | 'merge';

const DAMAGED_HINT: Record<LockRole, string> = {
  project: 'Restore it from version control, or delete it (every asset is then seen as new).',
  'lock-out': "It is a shard's lock (--lock-out): restore it, or delete it and the shard's next build starts from the project's lock.",
  merge:
    "It was named to `assetgen lock merge` as a shard's lock: take it again from the shard's build that wrote it (`--lock-out`), or leave it out; assetgen.lock was not changed.",
};

/**
 * The hint for a lock that is not one assetgen can use — not JSON, or a field malformed: only a
 * lock named to `lock merge` gets it (take it again, or leave it out). Whose other locks are
 * malformed is told by the message alone: deleting the project's lock, say, would pay again.
 */
const invalidHint = (role: LockRole): string | undefined => (role === 'merge' ? DAMAGED_HINT.merge : undefined);

/** The lock that belongs to a manifest: assetgen.lock in the same directory. */
export const lockFileFor = (manifestFile: string): string => path.join(path.dirname(manifestFile), LOCK_FILE);

/**
 * Reads a lockfile (a missing one is an empty lock), with the journal of a build that is running or
 * died (lock-journal.ts) replayed on top: what every reader sees is where the build got to.
 */
export function readLock(file: string, cache?: PlanCache, role: LockRole = 'project'): Lock {
  // Bytes, not text: the cache's key is their hash, cheaper taken on bytes than on a decoded string.
  let text: Buffer | undefined;
  try {
    text = readRegularFileSync(file, file);
  } catch (error) {
    if (error instanceof NotRegularFileError && role === 'merge') throw notALockFile(file, error.kind);
    if (error instanceof PathRefusedError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new LockError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const lock = text === undefined ? emptyLock() : parseLock(text, file, cache, role);
  const records = readJournal(journalFileFor(file));
  if (!records.length) return lock;
  for (const record of records) applyRecord(lock, record);
  return checkLock(lock, journalFileFor(file), invalidHint(role));
}

/**
 * A path named to `lock merge` that is a folder, a FIFO or a device: the user's input, not one of
 * assetgen's own files (whose hint is to move it away), so it says what is expected instead.
 */
function notALockFile(file: string, kind: string): LockError {
  return new LockError(
    `${file} is ${kind}, not a lock file: \`assetgen lock merge\` joins the lock files a sharded build wrote.`,
    `Name each shard's lock, the file its \`assetgen build --shard k/n --lock-out <file>\` wrote${
      kind === 'a folder' ? ` (the locks in that folder: ${path.join(file, '*.lock')})` : ''
    }; assetgen.lock was not changed.`,
  );
}

/**
 * Fills in, from `from`, the entries `lock` lacks: how every reader sees a shard whose first run,
 * killed before it wrote its lock, left a journal (readLockOut; its build starts so too, recording
 * its start: lock-history.ts startShardLock). Changes `lock` in place.
 */
export function fillMissingEntries(lock: Lock, from: Lock): void {
  for (const [id, entry] of Object.entries(from.assets)) if (!Object.hasOwn(lock.assets, id)) lock.assets[id] = structuredClone(entry);
}

/**
 * A `--lock-out` lock as its shard's next build starts from it: the file with its journal replayed,
 * or, when the file is not written yet, its journal over the project's lock (`projectLock`). null
 * when there is neither file nor journal (nothing of that shard exists).
 */
export function readLockOut(file: string, projectLock: () => Lock, role: LockRole = 'lock-out'): Lock | null {
  if (fs.existsSync(file)) return readLock(file, undefined, role);
  if (!fs.existsSync(journalFileFor(file))) return null;
  const lock = readLock(file, undefined, role);
  fillMissingEntries(lock, projectLock());
  return lock;
}

/**
 * Parses and checks a lockfile's text; `file` names it in errors, `role` says whose it is (the hint
 * for one that is not JSON). With `cache`, a text that passed the checks before (the same sha256)
 * is parsed without them (./plan-cache.ts).
 */
export function parseLock(text: string | Buffer, file: string, cache?: PlanCache, role: LockRole = 'project'): Lock {
  const checked = cache?.lockChecked(text);
  const json = typeof text === 'string' ? text : text.toString('utf8');
  if (checked) return parseLockJson(json, file, role) as Lock;
  const lock = checkLock(parseLockJson(json, file, role), file, invalidHint(role));
  cache?.noteLockChecked(text);
  return lock;
}

function parseLockJson(text: string, file: string, role: LockRole): unknown {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const conflict = /^(<{7}|={7}|>{7})/m.test(text);
    // One line: the parser quotes the text around the fault as it is, line breaks and all.
    throw new LockError(
      `${file} is not valid JSON: ${jsonSyntaxProblem(error, text)}`,
      conflict
        ? 'It has merge-conflict markers: take either side, or join shard locks with `assetgen lock merge`; a rebuild fixes the rest.'
        : DAMAGED_HINT[role],
    );
  }
  return data;
}

/** Checks a lock's shape (from its file, or after a journal was replayed onto it); `hint` goes with any failure. */
function checkLock(data: unknown, file: string, hint?: string): Lock {
  const fail = (where: string, message: string): never => {
    throw new LockError(`${file}: ${where}: ${message}`, hint);
  };
  if (!isObject(data)) return fail('top level', 'must be an object');
  if (data.lockfileVersion !== LOCK_VERSION)
    fail('lockfileVersion', `is ${JSON.stringify(data.lockfileVersion)}; this assetgen reads version ${LOCK_VERSION} (upgrade assetgen?)`);
  if (!isObject(data.assets)) return fail('assets', 'must be an object');
  if (data.shardHistory !== undefined) checkShardHistory(data.shardHistory, fail);
  for (const [id, entry] of Object.entries(data.assets)) {
    const where = `assets.${id}`;
    if (!ASSET_ID.test(id)) fail(`assets[${quotedId(id)}]`, NOT_AN_ID);
    if (!isObject(entry)) fail(where, 'must be an object');
    const e = entry as Record<string, unknown>;
    if (!KINDS.includes(e.kind as string)) fail(`${where}.kind`, 'must be image, workflow, video or sheet');
    for (const key of STRING_FIELDS) if (e[key] !== undefined && typeof e[key] !== 'string') fail(`${where}.${key}`, 'must be a string');
    if (e.credits !== undefined && e.credits !== null && typeof e.credits !== 'number') fail(`${where}.credits`, 'must be a number');
    if (e.generation !== undefined && !isCount(e.generation)) fail(`${where}.generation`, 'must be a whole number');
    if (e.postFailed !== undefined && e.postFailed !== true) fail(`${where}.postFailed`, 'must be true when present');
    if (e.restoredFrom !== undefined && e.restoredFrom !== 'remote-cache')
      fail(`${where}.restoredFrom`, 'must be "remote-cache" when present');
    if (e.postFailed && e.original === undefined) fail(`${where}.postFailed`, 'needs the original it failed on');
    if (e.specParts !== undefined && !isSpecParts(e.specParts)) fail(`${where}.specParts`, SPEC_PARTS_SHAPE);
    // Written into sidecars and reports: an id of the service's shape, as the client accepted it.
    if (e.generationId !== undefined && !isServiceId(e.generationId)) fail(`${where}.generationId`, SERVICE_ID_SHAPE);
    if (e.trim !== undefined && !isTrimPlacement(e.trim)) fail(`${where}.trim`, TRIM_SHAPE);
    if (!Array.isArray(e.files)) fail(`${where}.files`, 'must be a list');
    const checkFile = (f: unknown, field: string): void => {
      if (!isObject(f) || typeof f.path !== 'string' || typeof f.sha256 !== 'string' || typeof f.size !== 'number')
        fail(`${where}.${field}`, `${field === 'files' ? 'each file needs' : 'needs'} path, sha256 and size`);
      if (!isProjectPath((f as LockedFile).path)) fail(`${where}.${field}`, `${(f as LockedFile).path} is not a path inside the project`);
    };
    for (const f of e.files as unknown[]) checkFile(f, 'files');
    if (e.original !== undefined) checkFile(e.original, 'original');
    if (e.inputs !== undefined) for (const f of Array.isArray(e.inputs) ? e.inputs : [null]) checkFile(f, 'inputs');
    if (e.trims !== undefined && !isFrameTrims(e.trims, (e.files as unknown[]).length))
      fail(`${where}.trims`, `must be a list with one entry per file; each ${TRIM_SHAPE.replace(/^must be /, '')}`);
    const takeProblem = checkTakes(e);
    if (takeProblem) fail(`${where}.${takeProblem.field}`, takeProblem.message);
    if (e.job !== undefined) {
      const job = e.job;
      if (
        !isObject(job) ||
        typeof job.spec !== 'string' ||
        !KINDS.includes(job.kind as string) ||
        typeof job.idempotencyKey !== 'string' ||
        typeof job.submittedAt !== 'string'
      )
        fail(`${where}.job`, 'needs spec, kind, idempotencyKey and submittedAt');
      const record = job as Record<string, unknown>;
      if (record.jobId !== undefined && typeof record.jobId !== 'string') fail(`${where}.job.jobId`, 'must be a string');
      if (record.credits !== undefined && !isCount(record.credits)) fail(`${where}.job.credits`, 'must be a whole number');
      if (record.generation !== undefined && !isCount(record.generation)) fail(`${where}.job.generation`, 'must be a whole number');
      if (record.specParts !== undefined && !isSpecParts(record.specParts)) fail(`${where}.job.specParts`, SPEC_PARTS_SHAPE);
      if (record.take !== undefined && !isTakeNumber(record.take)) fail(`${where}.job.take`, TAKE_NUMBER);
    }
  }
  return data as unknown as Lock;
}

const DIGEST = /^[0-9a-f]{64}$/;
/** An id the manifest could never have (`__proto__`, say): never an asset of the lock, nor silently dropped. */
const NOT_AN_ID = 'is not an asset id (1 to 100 letters, digits, _ . -, starting with a letter or digit): no manifest has this asset';
/** A key that is no id, as a message shows it: quoted with JSON escapes (no control character), a long one cut. */
const quotedId = (id: string): string => (id.length > 100 ? `${JSON.stringify(id.slice(0, 100)).slice(0, -1)}…"` : JSON.stringify(id));

/** records.ts Lock.shardHistory: per asset, a list of one or more sha256 digests (hex), each once. */
function checkShardHistory(history: unknown, fail: (where: string, message: string) => never): void {
  if (!isObject(history)) fail('shardHistory', 'must map asset ids to lists of sha256 digests');
  for (const [id, states] of Object.entries(history)) {
    if (!ASSET_ID.test(id)) fail(`shardHistory[${quotedId(id)}]`, NOT_AN_ID);
    if (!Array.isArray(states) || !states.length || !states.every((state) => typeof state === 'string' && DIGEST.test(state)))
      fail(`shardHistory.${id}`, 'must be a list of sha256 digests (64 lowercase hex digits), the first one the start');
    if (new Set(states).size !== states.length) fail(`shardHistory.${id}`, 'lists a digest twice');
  }
}

/** A sliced asset's trim records: one per frame, each a TrimPlacement. */
const isFrameTrims = (trims: unknown, files: number): boolean =>
  Array.isArray(trims) && trims.length === files && trims.every(isTrimPlacement);

/** The lock as written: keys sorted everywhere, files sorted by path (frames by number), two-space indent, final newline. */
export function serializeLock(lock: Lock): string {
  return [...lockPieces(lock)].join('');
}

/**
 * serializeLock's text in pieces, an entry's text made only when its piece is taken, and never
 * joined: the write streams them to the file, a batch at a time, so a lock of 5,000 entries (4 MB)
 * is never whole in memory as text, nor as one string and its bytes (docs/imaging.md "Memory").
 * Which entries, in which order, is fixed when this is called; their content is read as the pieces
 * are taken, so the lock must not change until the last one is (LockWriter holds its updates
 * while it writes the lock).
 */
function lockPieces(lock: Lock): Iterable<string> {
  const ids = Object.keys(lock.assets).sort();
  const entries = ids.map((id) => lock.assets[id]);
  const version = JSON.stringify(lock.lockfileVersion);
  return (function* pieces() {
    if (!ids.length) {
      yield `{\n  "assets": {},\n  "lockfileVersion": ${version}`;
      yield* historyPieces(lock.shardHistory);
      yield '\n}\n';
      return;
    }
    yield '{\n  "assets": {\n';
    for (let index = 0; index < ids.length; index++)
      yield `${index ? ',\n' : ''}    ${JSON.stringify(ids[index])}: ${entryText(entries[index])}`;
    yield `\n  },\n  "lockfileVersion": ${version}`;
    yield* historyPieces(lock.shardHistory);
    yield '\n}\n';
  })();
}

/** A shard's history (records.ts Lock.shardHistory), after lockfileVersion in key order: a piece per asset. */
function* historyPieces(history: Lock['shardHistory']): Iterable<string> {
  if (!history) return;
  const ids = Object.keys(history).sort();
  if (!ids.length) {
    yield ',\n  "shardHistory": {}';
    return;
  }
  yield ',\n  "shardHistory": {\n';
  for (let index = 0; index < ids.length; index++)
    yield `${index ? ',\n' : ''}    ${JSON.stringify(ids[index])}: ${JSON.stringify(history[ids[index]], null, 2).replaceAll('\n', '\n    ')}`;
  yield '\n  }';
}

/** One entry as it reads at its depth in the lock (JSON strings hold no raw newline, so indenting is safe). */
function entryText(entry: LockEntry): string {
  const files = [...entry.files].sort((a, b) => compareProjectPaths(a.path, b.path));
  return stableStringify({ ...entry, files }, 2).replaceAll('\n', '\n    ');
}

/**
 * Temp file in the same directory, flushed, then renamed: a reader (or a crash) never sees half a
 * lock. Inside the lock's folder by the confinement rule: a link where the lock goes is refused.
 * `lock` must not change until this resolves (see lockPieces).
 */
export async function writeLockAtomic(file: string, lock: Lock): Promise<void> {
  await writeFileInside(path.dirname(file), file, lockPieces(lock), file, { durable: true });
}

const SPEC_PARTS_SHAPE = 'must map a few part names to short hashes';
/** A committed lock is input too: a spec's parts are a handful of short strings, never more. */
function isSpecParts(value: unknown): boolean {
  if (!isObject(value)) return false;
  // A loop, not Object.entries: every entry of a lock has parts, and reading 10,000 of them is a step of every plan.
  let count = 0;
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    const hash = value[name];
    if (++count > 16 || name.length > 32 || typeof hash !== 'string' || hash.length > 64) return false;
  }
  return true;
}

const TAKE_NUMBER = 'must be a whole number from 1 (a take of the asset)';
const isTakeNumber = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;

/**
 * An entry's takes (records.ts LockedTake): each with a distinct number k, a project path, a hash,
 * a size and its credits; `picked` names one of them; `prunedTakes` lists numbers and credits. The first problem, with the field it is in.
 */
function checkTakes(entry: Record<string, unknown>): { field: string; message: string } | undefined {
  const { candidates, picked } = entry;
  if (candidates !== undefined) {
    if (!Array.isArray(candidates)) return { field: 'candidates', message: 'must be a list of takes' };
    const seen = new Set<number>();
    for (const take of candidates as unknown[]) {
      if (
        !isObject(take) ||
        !isTakeNumber(take.k) ||
        typeof take.file !== 'string' ||
        typeof take.sha256 !== 'string' ||
        typeof take.size !== 'number' ||
        !(take.credits === null || typeof take.credits === 'number')
      )
        return {
          field: 'candidates',
          message: 'each take needs k (a whole number from 1), file, sha256, size and credits (a number or null)',
        };
      if (!isProjectPath(take.file)) return { field: 'candidates', message: `${take.file} is not a path inside the project` };
      if (take.generationId !== undefined && !isServiceId(take.generationId))
        return { field: 'candidates', message: `take ${take.k as number}: generationId ${SERVICE_ID_SHAPE}` };
      if (seen.has(take.k as number)) return { field: 'candidates', message: `take ${take.k as number} is listed twice` };
      seen.add(take.k as number);
    }
  }
  const { prunedTakes } = entry;
  if (
    prunedTakes !== undefined &&
    (!Array.isArray(prunedTakes) ||
      !prunedTakes.every((take) => isObject(take) && isTakeNumber(take.k) && (take.credits === null || typeof take.credits === 'number')))
  )
    return { field: 'prunedTakes', message: 'must be a list of {k, credits} (the takes --prune-takes deleted)' };
  if (picked === undefined) return undefined;
  if (!isTakeNumber(picked)) return { field: 'picked', message: TAKE_NUMBER };
  if (!Array.isArray(candidates) || !candidates.some((take: { k: unknown }) => take.k === picked))
    return { field: 'picked', message: `names take ${picked as number}, which candidates does not list` };
  return undefined;
}

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

const SERVICE_ID_SHAPE = 'must be an id the service gives (1 to 128 letters, digits, _ . : - only)';
const isServiceId = (value: unknown): boolean => typeof value === 'string' && SAFE_ID.test(value);

const TRIM_SHAPE = 'must be {x, y, width, height, sourceWidth, sourceHeight}: the picture inside the source, in whole pixels';
/** records.ts TrimPlacement: a rectangle of at least one pixel inside its source. */
function isTrimPlacement(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { x, y, width, height, sourceWidth, sourceHeight } = value;
  const counts = [x, y, width, height, sourceWidth, sourceHeight];
  if (Object.keys(value).length !== counts.length || !counts.every(isCount)) return false;
  const [left, top, w, h, sw, sh] = counts as number[];
  return w >= 1 && h >= 1 && left + w <= sw && top + h <= sh;
}

/** The same, synchronously (folding a dead build's journal when a writer opens). */
export function writeLockAtomicSync(file: string, lock: Lock): void {
  writeFileInsideSync(path.dirname(file), file, serializeLock(lock), file, { durable: true });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
