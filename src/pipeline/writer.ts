// The one writer of assetgen.lock during a build: updates in order, each appended to the lock's
// journal and fsync'd before it resolves (lock-journal.ts), the whole lock rewritten atomically when
// the build ends; and a claim file so that two assetgen processes never write one lock at once (the
// later one would drop the other's records of jobs already paid for). Every one of these files (the
// lock, the journal, the claim and their temp files) is written by the confinement rule inside the
// lock's folder (src/files/confine.ts), checked before anything is paid for.
import fs from 'node:fs';
import path from 'node:path';
import { openAppendInside, placeToWrite, removeInside, sweepFolder } from '../files/confine.js';
import { claim } from './lock-claim.js';
import { readLock, writeLockAtomic, writeLockAtomicSync } from './lock.js';
import { entryOf, noteState, startShardLock } from './lock-history.js';
import type { Lock, LockedFile, LockedTake, LockEntry, LockJob } from './records.js';
import { journalFileFor, journalLine, type JournalRecord } from './lock-journal.js';
import { pickedTake, takeOf } from './takes.js';

/** The generation an entry's takes belong to: the one in flight, else the last finish's. */
const takesGeneration = (entry: LockEntry): number => entry.job?.generation ?? entry.generation ?? 1;

/** What the build loop knows when it submits an asset: the lock's job record, less the time it stamps. */
export type Submission = Omit<LockJob, 'submittedAt'>;

/** Post-processing's part of a finish (lock.ts LockEntry): absent for an asset without steps (`trim`: with a trim step; `trims`: a trim after a slice, per frame). */
export type Processed = Pick<LockEntry, 'original' | 'post' | 'trim' | 'trims'>;

/** What a finish records: the files, the whole cost, what post-processing made, and (an image) the service's generation id. */
type Finish = { files: LockedFile[]; credits: number | null; finishedAt?: Date; generationId?: string } & Processed;

/**
 * The one writer of a lockfile. Each update is applied to the in-memory lock and appended to the
 * journal, in the order the updates were made, even when a build loop issues them concurrently;
 * `close()` writes the whole lock and drops the journal. While open it holds a claim beside the
 * lock, so a second assetgen (another terminal, say) cannot overwrite its records of paid jobs;
 * `close()` gives it up, and a claim left by a dead process is taken over.
 */
export class LockWriter {
  readonly file: string;
  /** The lock's folder: every file the writer makes stays inside it. */
  readonly #root: string;
  readonly #claim: string;
  #lock: Lock;
  #pending: { change: (lock: Lock) => void; changes: string[] | 'all'; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #writing = false;
  readonly #journalFile: string;
  #journal?: fs.promises.FileHandle;
  /** The journal holds changes the lock file does not have yet. */
  #unfolded = false;
  /** The service host this build runs on, recorded with each finish (provenance). */
  readonly #service: string | undefined;

  private constructor(file: string, lock: Lock, claimFile: string, service?: string) {
    this.file = file;
    this.#root = path.dirname(file);
    this.#service = service || undefined;
    this.#lock = lock;
    this.#claim = claimFile;
    this.#journalFile = journalFileFor(file);
  }

  /**
   * Claims the lockfile and reads it (a missing one is empty), folding in the journal a build that
   * died left behind. Throws LockError when another process writes it.
   */
  static open(file: string, options: { service?: string } = {}): LockWriter {
    const root = path.dirname(file);
    // Before anything is claimed or paid for: a link (dangling or not), a folder or a FIFO where
    // the lock or its journal goes is refused (PathRefusedError, exit 2); the claim checks its own.
    placeToWrite(root, file);
    placeToWrite(root, journalFileFor(file));
    const claimFile = claim(file, root);
    try {
      const writer = new LockWriter(file, readLock(file), claimFile, options.service);
      // The temp files a killed writer left beside the lock (a lock or claim half written) go now.
      sweepFolder(root, root);
      if (fs.existsSync(writer.#journalFile)) {
        writeLockAtomicSync(file, writer.#lock);
        removeInside(root, writer.#journalFile);
      }
      return writer;
    } catch (error) {
      removeInside(root, claimFile);
      throw error;
    }
  }

  /** A copy of the lock as the updates so far leave it (plan again from this after a crash). */
  get lock(): Lock {
    return structuredClone(this.#lock);
  }

  /**
   * A copy of one asset's entry as the updates so far leave it: what a build reads per asset (a copy
   * of the whole lock per asset made re-processing 1,000 assets quadratic: seconds of cloning).
   */
  entry(id: string): LockEntry | undefined {
    const entry = entryOf(this.#lock, id);
    return entry && structuredClone(entry);
  }

  /**
   * Before waiting on a paid call: its idempotency key (call it before the call, too), then its job
   * id once the service answers. The files of an earlier finish stay recorded until this one ends.
   */
  submitted(id: string, submission: Submission): Promise<void> {
    return this.#update([id], (lock) => {
      const { spec, kind, agent, workflow, idempotencyKey, generation, jobId, credits, specParts, take } = submission;
      const entry = entryOf(lock, id);
      const earlier = entry?.job;
      const same = earlier?.idempotencyKey === idempotencyKey;
      const submittedAt = same ? earlier.submittedAt : new Date().toISOString();
      const job: LockJob = {
        spec,
        kind,
        agent,
        workflow,
        idempotencyKey,
        generation,
        specParts,
        take,
        jobId: jobId ?? (same ? earlier.jobId : undefined),
        credits: credits ?? (same ? earlier.credits : undefined),
        submittedAt,
      };
      lock.assets[id] = { ...(entry ?? { kind, agent, workflow, files: [] }), job };
      // The takes listed are those of the generation in flight (else of the last finish): a new
      // generation starts with none (the build removed the last one's files before this).
      if (entry?.candidates && takesGeneration(entry) !== generation) {
        delete lock.assets[id].candidates;
        delete lock.assets[id].picked;
        delete lock.assets[id].prunedTakes;
      }
    });
  }

  /**
   * A take saved (its paid call answered, or take 1 made from the asset as built): listed with the
   * takes of its generation, replacing any record of the same number.
   */
  tookTake(id: string, take: LockedTake): Promise<void> {
    return this.#update([id], (lock) => {
      const entry = entryOf(lock, id);
      if (!entry) throw new Error(`LockWriter.tookTake(${id}): the asset has no entry`);
      entry.candidates = [...(entry.candidates ?? []).filter((other) => other.k !== take.k), take].sort((a, b) => a.k - b.k);
    });
  }

  /**
   * `assetgen pick`: the output is now made from take `k` (no paid call); `processed` is what its
   * post steps made of it (the files, and the take as the original they ran on).
   */
  picked(id: string, k: number, processed: { files: LockedFile[] } & Processed): Promise<void> {
    return this.#update([id], (lock) => {
      const entry = entryOf(lock, id);
      if (!entry?.candidates?.some((take) => take.k === k)) throw new Error(`LockWriter.picked(${id}, ${k}): no such take`);
      const { postFailed: _failed, original: _original, post: _post, trim: _trim, trims: _trims, generationId: _made, ...rest } = entry;
      const { files, original, post, trim, trims } = processed;
      const generationId = takeOf(entry, k)?.generationId;
      lock.assets[id] = { ...rest, files, original, post, trim, trims, generationId, picked: k };
    });
  }

  /** --prune-takes: the takes not picked are deleted; the one kept is recorded as picked (the choice is made). */
  prunedTakes(id: string, removed: readonly string[]): Promise<void> {
    return this.#update([id], (lock) => {
      const entry = entryOf(lock, id);
      if (!entry?.candidates) return;
      entry.picked = entry.picked ?? 1;
      const pruned = entry.candidates.filter((take) => removed.includes(take.file)).map(({ k, credits }) => ({ k, credits }));
      entry.prunedTakes = [...(entry.prunedTakes ?? []), ...pruned].sort((a, b) => a.k - b.k);
      entry.candidates = entry.candidates.filter((take) => !removed.includes(take.file));
    });
  }

  /**
   * What the job in flight has been charged so far (a resume adds to this); null while that is not
   * known (a poll is out: were the process killed now, its charge could not be told).
   */
  charged(id: string, credits: number | null): Promise<void> {
    return this.#update([id], (lock) => {
      const job = entryOf(lock, id)?.job;
      if (!job) return;
      if (credits === null) delete job.credits;
      else job.credits = credits;
    });
  }

  /**
   * After saving: the files (see hash.ts describeFiles) replace the earlier ones, and the job is
   * done. `credits` is the asset's whole cost (null when part of it is unknown).
   */
  finished(id: string, result: Finish): Promise<void> {
    return this.#update([id], (lock) => void (lock.assets[id] = this.#finish(lock, id, 'finished', result)));
  }

  /**
   * A paid image saved as its original, whose post steps then failed: the job is done all the same
   * (its cost and original recorded, its key never asked again), the files of the last finish stay
   * recorded, and `postFailed` has the next plan re-process the original, with no paid call.
   */
  postFailed(id: string, result: { credits: number | null; original: LockedFile; generationId?: string }): Promise<void> {
    return this.#update([id], (lock) => {
      const { files = [], trim, trims } = entryOf(lock, id) ?? {};
      lock.assets[id] = { ...this.#finish(lock, id, 'postFailed', { ...result, files, trim, trims }), postFailed: true };
    });
  }

  /** The entry a finish leaves: what the job made, with the files and cost given. */
  #finish(lock: Lock, id: string, what: string, result: Finish): LockEntry {
    const job = entryOf(lock, id)?.job;
    if (!job) throw new Error(`LockWriter.${what}(${id}): no job was submitted for it`);
    const { spec, specParts, kind, agent, workflow, generation, jobId, take } = job;
    const finishedAt = (result.finishedAt ?? new Date()).toISOString();
    const service = this.#service;
    const { files, credits, original, post, trim, trims, generationId } = result;
    const made = {
      kind,
      agent,
      workflow,
      spec,
      specParts,
      files,
      credits,
      finishedAt,
      generation,
      jobId,
      service,
      original,
      post,
      trim,
      trims,
    };
    const entry = entryOf(lock, id);
    if (take === undefined || !entry?.candidates?.length) return { ...made, generationId };
    // An asset with takes: its cost is what its takes cost (null when one's is unknown), the pick kept.
    const { candidates, picked, prunedTakes } = entry;
    const sum = [...candidates, ...(prunedTakes ?? [])].reduce<number | null>(
      (total, one) => (total === null || one.credits === null ? null : total + one.credits),
      0,
    );
    return {
      ...made,
      credits: sum,
      // The files are made from the picked take: its generation.
      generationId: takeOf(entry, pickedTake(entry))?.generationId,
      candidates,
      ...(picked !== undefined && candidates.some((one) => one.k === picked) ? { picked } : {}),
      ...(prunedTakes?.length ? { prunedTakes } : {}),
    };
  }

  /** Re-processed from the kept original (no paid call): new files and steps, the rest as it was (an earlier failure of the steps forgotten). */
  reprocessed(id: string, result: { files: LockedFile[] } & Processed): Promise<void> {
    return this.#update([id], (lock) => {
      const entry = entryOf(lock, id);
      if (!entry?.spec) throw new Error(`LockWriter.reprocessed(${id}): it was never built`);
      const { postFailed: _failed, trim: _trim, trims: _trims, ...rest } = entry;
      lock.assets[id] = {
        ...rest,
        files: result.files,
        original: result.original,
        post: result.post,
        trim: result.trim,
        trims: result.trims,
      };
    });
  }

  /**
   * The job failed (a video job is refunded): forget it; earlier files stay recorded, and so does
   * its generation, so the next try is a new generation with a new key (the old key would replay
   * the failed job).
   */
  failed(id: string): Promise<void> {
    return this.#update([id], (lock) => {
      const entry = entryOf(lock, id);
      if (!entry?.job) return;
      const { generation } = entry.job;
      delete entry.job;
      if (generation !== undefined && generation > (entry.generation ?? 0)) entry.generation = generation;
      // Nothing made, nothing to remember: the asset is new again.
      if (!entry.spec && !entry.files.length && entry.generation === undefined) delete lock.assets[id];
    });
  }

  /** The asset left the manifest and its files were pruned. */
  forget(id: string): Promise<void> {
    return this.#update([id], (lock) => void delete lock.assets[id]);
  }

  /** A sheet packed (pipeline/sheet.ts): its whole entry, made with no paid call. */
  packed(id: string, entry: LockEntry): Promise<void> {
    return this.#update([id], (lock) => void (lock.assets[id] = entry));
  }

  /**
   * Restored from the remote cache's entry for its spec (./remote.ts): its files are in place, and
   * the entry made elsewhere is this asset's finish, marked as restored (this lock paid nothing).
   */
  restored(id: string, entry: LockEntry): Promise<void> {
    return this.#update([id], (lock) => void (lock.assets[id] = { ...structuredClone(entry), restoredFrom: 'remote-cache' }));
  }

  /**
   * Adds the entries of `lock` this one does not have (a shard's new --lock-out, made from the
   * project's lock): an entry a killed earlier run journalled here is newer, and stays. What it
   * starts from is recorded, for `lock merge` (lock-history.ts).
   */
  seed(lock: Lock): Promise<void> {
    return this.#update('all', (current) => startShardLock(current, lock));
  }

  /** Replaces the whole lock (`lock merge`): its history too (the merged lock has none). */
  replace(lock: Lock): Promise<void> {
    return this.#update('all', (current) => {
      delete current.shardHistory;
      Object.assign(current, structuredClone(lock));
    });
  }

  /** Resolves when every update so far is on disk. */
  async flush(): Promise<void> {
    await this.#update([], () => {}).catch(() => {});
  }

  /** Waits for the updates so far, writes the whole lock (the journal is then dropped), then gives up the claim. */
  async close(): Promise<void> {
    try {
      if (this.#writing || this.#pending.length) await this.flush();
      await this.#journal?.close();
      this.#journal = undefined;
      if (this.#unfolded) await this.#fold();
    } finally {
      removeInside(this.#root, this.#claim);
    }
  }

  /**
   * The lock as it stands, written whole and atomically; then the journal has nothing the lock
   * lacks. The write reads the entries as it goes (lock.ts lockPieces), so updates that arrive
   * meanwhile wait (as they do for an append) and are journalled after it.
   */
  async #fold(): Promise<void> {
    while (this.#writing) await this.flush();
    this.#writing = true;
    try {
      await writeLockAtomic(this.file, this.#lock);
      removeInside(this.#root, this.#journalFile);
      this.#unfolded = false;
    } finally {
      this.#writing = false;
      if (this.#pending.length) void this.#drain();
    }
  }

  /**
   * Applies a change and resolves once it is on disk (in the journal, fsync'd). Changes that arrive
   * while a write is under way are appended together, one write and one fsync (group commit): a
   * 1,000-asset build makes ~2,000 updates, and rewriting the whole lock for each serialised the
   * build. `changes` names the entries the change touches (their records are appended), or 'all'.
   * While the whole lock is written (#fold), changes wait for it.
   */
  #update(changes: string[] | 'all', change: (lock: Lock) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ change, changes, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#pending.length) {
      const batch = this.#pending.splice(0);
      const applied = batch.filter((update) => {
        try {
          update.change(this.#lock);
          return true;
        } catch (error) {
          update.reject(error);
          return false;
        }
      });
      try {
        await this.#append(applied.map((update) => update.changes));
        for (const update of applied) update.resolve();
      } catch (error) {
        // A failed write rejects its own callers only (the next append carries their entries again).
        for (const update of applied) update.reject(error);
      }
    }
    this.#writing = false;
  }

  /** The touched entries as they now stand, one record each, appended in one write and fsync'd. */
  async #append(changes: (string[] | 'all')[]): Promise<void> {
    const ids = new Set<string>();
    let whole = false;
    for (const change of changes) {
      if (change === 'all') whole = true;
      else for (const id of change) ids.add(id);
    }
    if (!whole && !ids.size) return;
    // A shard's lock: each entry's new state joins its history, as a replay of these records does.
    for (const id of ids) noteState(this.#lock, id, entryOf(this.#lock, id));
    const records: JournalRecord[] = whole
      ? [{ lock: this.#lock }]
      : [...ids].map((id) => ({ id, entry: entryOf(this.#lock, id) ?? null }));
    this.#journal ??= await openAppendInside(this.#root, this.#journalFile);
    this.#unfolded = true;
    await this.#journal.write(records.map(journalLine).join(''));
    await this.#journal.datasync();
  }
}
