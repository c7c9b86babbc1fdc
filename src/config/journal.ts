// The local job journal: every paid job (video jobs, workflow runs) is appended here BEFORE any
// waiting starts, so a crash, a Ctrl-C or a closed laptop never loses track of something paid for;
// every paid submission (an image's generate included) before it is sent.
// JSON Lines, append-only: each line is a full or partial record; later lines update earlier ones.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SAFE_ID } from '../api/endpoints.js';
import { redactUrl } from '../client/redact.js';
import { LocalFileError } from './errors.js';
import { stateDir, type Env } from './paths.js';
import { appendRegularFileSync, ownFileFailure, readRegularFileSync } from '../files/confine.js';

export type JobKind = 'video' | 'run' | 'image';
/** The kinds a journal line may name. An image is only ever a submission: its answer is the image. */
const JOB_KINDS: readonly string[] = ['video', 'run', 'image'] satisfies JobKind[];

/** A submission sent (or about to be) whose answer has not come back: what it made is not known here. */
export const SUBMITTING = 'submitting';
/** A submission whose answer came back: the job it made has a record of its own. */
export const ANSWERED = 'answered';
/** A submission the service refused before doing anything (nothing paid). */
export const REFUSED = 'refused';
/** The words a `resubmit` may hold: a command's own, bounded. */
const MAX_RESUBMIT_WORDS = 64;
const MAX_RESUBMIT_WORD = 8_192;
/** A label (a prompt, a workflow id) is for people reading the list: its start is enough. */
const MAX_LABEL = 512;

/** The journal's id of the submission sent with `idempotencyKey` (the key itself is not written as an id). */
export const submissionId = (idempotencyKey: string): string =>
  `submit-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 16)}`;

export interface JournalEntry {
  kind: JobKind;
  id: string;
  baseUrl: string;
  /** Last status seen by this machine (normalised: queued, running, succeeded, failed). */
  state: string;
  /** Prompt of a video, workflow id of a run. */
  label?: string;
  creditsCharged?: number;
  saved?: string[];
  refunded?: boolean;
  /** What resuming the wait needs besides the id: where the result goes, --base-url, --interval. */
  resume?: { output?: string; baseUrl?: string; intervalMs?: number; force?: boolean };
  /**
   * A submission whose answer has not come back (state `submitting`; its id `submit-<hash of the
   * key>`): the words of the command that sends it again with the same Idempotency-Key, which the
   * service answers with the job it made (and charged for) instead of a new one.
   */
  resubmit?: string[];
  createdAt: string;
  updatedAt: string;
}

/** A journal line that was not a record: listed with its line number, the id when it had one, and why. */
export interface SkippedLine {
  line: number;
  id: string | null;
  why: string;
}

const REPAIR_HINT = 'Move it away (assetgen starts a new one) or fix it by hand; it only lists jobs, the service keeps them.';
/** When something other than a file is where the journal goes: nothing of it is lost by moving that. */
const MOVED_HINT = 'assetgen then starts a new journal (it only lists jobs; the service keeps them).';

export class JobJournal {
  /** null for a memory-only journal (jobs on an in-process mock die with the process). */
  readonly file: string | null;
  readonly #memory: string[] = [];

  constructor(env: Env = process.env, options: { memoryOnly?: boolean } = {}) {
    this.file = options.memoryOnly ? null : path.join(stateDir(env), 'jobs.jsonl');
  }

  /** Records a newly submitted job. Synchronous on purpose: it must be on disk before we wait. */
  recordSubmitted(entry: Omit<JournalEntry, 'createdAt' | 'updatedAt'>): void {
    const now = new Date().toISOString();
    this.#append({ ...entry, createdAt: now, updatedAt: now });
  }

  /**
   * Records a paid submission about to be sent, before it is (the service may carry it out and
   * charge for it even if its answer never comes back: Ctrl-C, a dropped connection, an MCP client
   * that cancels). Returns the record's id, for `recordUpdate` once the outcome is known.
   */
  recordSubmitting(kind: JobKind, baseUrl: string, idempotencyKey: string, label: string, resubmit: string[]): string {
    const id = submissionId(idempotencyKey);
    // A command too long to keep (a prompt of over 8 KiB) is not kept: the error still names the key.
    this.recordSubmitted({ kind, id, baseUrl, state: SUBMITTING, label, ...(validResubmit(resubmit) ? { resubmit } : {}) });
    return id;
  }

  /** Records a later observation of a job (new state, saved files, refund). */
  recordUpdate(kind: JobKind, id: string, baseUrl: string, update: Partial<JournalEntry>): void {
    this.#append({ ...update, kind, id, baseUrl, updatedAt: new Date().toISOString() });
  }

  /** Jobs folded by (baseUrl, kind, id), newest first. Lines that are not records are skipped, not fatal. */
  list(): JournalEntry[] {
    return this.read().entries;
  }

  /** The jobs (as `list`) and the lines skipped, with why: a torn last line after a crash, a line not ours. */
  read(): { entries: JournalEntry[]; skipped: SkippedLine[] } {
    let text: string;
    try {
      text = this.file === null ? this.#memory.join('') : readRegularFileSync(this.file, this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], skipped: [] };
      const { message, hint } = ownFileFailure('read', 'the job journal', this.file ?? '', error, {
        moved: MOVED_HINT,
        otherwise: `Check its permissions. ${REPAIR_HINT}`,
      });
      throw new LocalFileError(this.file ?? '', message, hint, error);
    }
    const byKey = new Map<string, JournalEntry>();
    const skipped: SkippedLine[] = [];
    text.split('\n').forEach((line, index) => {
      if (!line.trim()) return;
      const record = parseRecord(line);
      // Skipped, and said so (docs/cli.md, jobs): the rest of the journal still lists.
      if (typeof record === 'string') {
        skipped.push({ line: index + 1, id: idOf(line), why: record });
        return;
      }
      const key = `${record.baseUrl}\u0000${record.kind}\u0000${record.id}`;
      const previous = byKey.get(key);
      byKey.set(key, { ...(previous ?? { state: 'unknown' }), ...record } as JournalEntry);
    });
    // A record that lost a time (null, or written by hand) still sorts and prints.
    const entries = [...byKey.values()].map((entry) => {
      const createdAt = entry.createdAt ?? entry.updatedAt ?? '';
      return { ...entry, createdAt, updatedAt: entry.updatedAt ?? createdAt };
    });
    return { entries: entries.sort((a, b) => b.createdAt.localeCompare(a.createdAt)), skipped };
  }

  find(kind: JobKind, id: string): JournalEntry | undefined {
    return this.list().find((entry) => entry.kind === kind && entry.id === id);
  }

  #append(record: Partial<JournalEntry>): void {
    // The journal is plain text in the state dir: never a password from a base URL.
    const safe = {
      ...record,
      ...(record.label !== undefined && record.label.length > MAX_LABEL ? { label: `${record.label.slice(0, MAX_LABEL - 1)}…` } : {}),
      ...(record.baseUrl ? { baseUrl: redactUrl(record.baseUrl) } : {}),
      ...(record.resume?.baseUrl ? { resume: { ...record.resume, baseUrl: redactUrl(record.resume.baseUrl) } } : {}),
    };
    const line = `${JSON.stringify(safe)}\n`;
    if (this.file === null) {
      this.#memory.push(line);
      return;
    }
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      appendRegularFileSync(this.file, line, 0o600);
    } catch (error) {
      const { message, hint } = ownFileFailure('write', 'the job journal', this.file, error, {
        moved: MOVED_HINT,
        otherwise: `Check that its folder is writable (ASSETGEN_STATE_DIR names another). ${REPAIR_HINT}`,
      });
      throw new LocalFileError(this.file, message, hint, error);
    }
  }
}

/** One journal line as a record, or why it is not a valid one. */
function parseRecord(line: string): Partial<JournalEntry> | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON (a line cut short by a crash?)';
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  if (typeof record.kind !== 'string' || !JOB_KINDS.includes(record.kind)) return '"kind" is none of "video", "run", "image"';
  if (typeof record.id !== 'string' || !SAFE_ID.test(record.id))
    return '"id" is not an id assetgen accepts (letters, digits, _ . : - only)';
  if (typeof record.baseUrl !== 'string') return '"baseUrl" is not a string';
  const strings = ['state', 'label', 'createdAt', 'updatedAt'] as const;
  for (const field of strings) if (record[field] !== undefined && typeof record[field] !== 'string') delete record[field];
  if (record.saved !== undefined && !(Array.isArray(record.saved) && record.saved.every((file) => typeof file === 'string')))
    delete record.saved;
  if (record.refunded !== undefined && typeof record.refunded !== 'boolean') delete record.refunded;
  if (record.creditsCharged !== undefined && typeof record.creditsCharged !== 'number') delete record.creditsCharged;
  if (record.resume !== undefined && !validResume(record.resume)) delete record.resume;
  if (record.resubmit !== undefined && !validResubmit(record.resubmit)) delete record.resubmit;
  return record;
}

/** The id of a skipped line, when it has a plain one to show (printable, short). */
function idOf(line: string): string | null {
  try {
    const id: unknown = (JSON.parse(line) as Record<string, unknown> | null)?.id;
    return typeof id === 'string' && /^[\x20-\x7e]{1,128}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

function validResume(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const resume = value as Record<string, unknown>;
  return (
    ['output', 'baseUrl'].every((field) => resume[field] === undefined || typeof resume[field] === 'string') &&
    (resume.intervalMs === undefined || typeof resume.intervalMs === 'number') &&
    (resume.force === undefined || typeof resume.force === 'boolean')
  );
}

/** A resubmit as this journal writes it: assetgen's own command words (generate, video create, workflows run), bounded. */
function validResubmit(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length <= MAX_RESUBMIT_WORDS &&
    value.every((word) => typeof word === 'string' && word.length <= MAX_RESUBMIT_WORD) &&
    (value[0] === 'generate' || (value[0] === 'video' && value[1] === 'create') || (value[0] === 'workflows' && value[1] === 'run'))
  );
}
