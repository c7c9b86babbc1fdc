// The mock's state: one seeded account (credits and a ledger), its credentials (credentials.ts),
// and the records of generations, runs and video jobs. Pure data and rules: no HTTP here.
import type { EndpointName } from '../api/endpoints.js';
import { CredentialBook } from './credentials.js';
import { DEFAULT_IDEMPOTENCY_LIMITS, IdempotencyStore, type IdempotencyLimits } from './idempotency.js';
import { randomHex } from './ids.js';
import { DEFAULT_CREDITS } from './constants.js';
import { VIDEO_EXTENSION } from './media/gif.js';
import { seededRandom } from './media/pixel-art.js';
import { VariationCounter } from './variations.js';
import { AGENTS, WORKFLOWS, type AgentRecord, type WorkflowRecord } from './seed.js';
import type { FileRecord, LedgerEntry, RunRecord, VideoRecord } from './records-state.js';

export type { FileRecord, LedgerEntry, RunNodeState, RunRecord, VideoRecord } from './records-state.js';
export type { Principal } from './credentials.js';

export type FaultKind = '500' | '503' | '429' | 'reset' | 'truncate';
export const FAULT_KINDS: readonly FaultKind[] = ['500', '503', '429', 'reset', 'truncate'];
/** `empty`: the job succeeds without an output (`output: null`), as a service that lost the file. */
export type VideoOutcome = 'succeed' | 'fail' | 'empty' | 'random';

export interface MockConfig {
  credits: number;
  videoOutcome: VideoOutcome;
  /** Polls a video job takes to finish (the last one reports the outcome). */
  videoSteps: number;
  /** The poll hint a video job gives (`pollAfterMs`, `Retry-After`). */
  videoPollAfterMs: number;
  /** How long after a job fails the service applies its refund (until then it reads `refunded: false`). */
  videoRefundDelayMs: number;
  /** Pause between SSE events. */
  streamStepMs: number;
  /** Added to every public response. */
  latencyMs: number;
  /**
   * Endpoints whose calls wait, before anything else happens to them (nothing charged yet), until
   * the endpoint is taken off this list: a test's deterministic "the call is out now" (see
   * `held` in /__mock/state), where a latency would race the machine's speed.
   */
  hold: EndpointName[];
  faults: { rate: number; kinds: FaultKind[] };
  /** How many idempotent answers are kept, and for how long (see idempotency.ts). */
  idempotency: IdempotencyLimits;
  /** Re-seeds the random choices (fault picks, random outcomes) when set. */
  seed?: string;
}

export const DEFAULT_CONFIG: Omit<MockConfig, 'credits'> = {
  videoOutcome: 'succeed',
  videoSteps: 2,
  videoPollAfterMs: 500,
  videoRefundDelayMs: 0,
  streamStepMs: 40,
  latencyMs: 0,
  hold: [],
  faults: { rate: 0, kinds: ['500', '503', '429', 'reset', 'truncate'] },
  idempotency: DEFAULT_IDEMPOTENCY_LIMITS,
};

/** The time as ISO text, formatted once per millisecond (several requests share one under load). */
let lastMs = 0;
let lastIso = '';
export function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export interface MockStateOptions {
  credits?: number;
  seed?: string | number;
  /** Epoch ms, for the age of idempotent answers; a test may pass its own. */
  clock?: () => number;
}

export class MockState {
  config: MockConfig;
  readonly initialCredits: number;
  credits: number;
  ledger: LedgerEntry[] = [];
  readonly agents: readonly AgentRecord[] = AGENTS;
  readonly workflows: readonly WorkflowRecord[] = WORKFLOWS;
  files = new Map<string, FileRecord>();
  /** Pictures made so far per (kind, agent, prompt): the next file's `variation`. */
  readonly #variations = new VariationCounter();
  runs = new Map<string, RunRecord>();
  videos = new Map<string, VideoRecord>();
  /** Jobs that will fail, until they have: the service fails them on its clock, polled or not. */
  readonly #pendingFailures = new Set<VideoRecord>();
  /** Failed jobs whose refund is delayed (`videoRefundDelayMs`), until it is applied. */
  readonly #pendingRefunds = new Set<VideoRecord>();
  streams = new Map<string, { status: 'streaming' | 'completed' | 'cancelled'; events: number }>();
  readonly idempotency: IdempotencyStore;
  requests = 0;
  random: () => number;
  readonly #seed: string;
  /** API keys and sessions (as hashes); they survive `reset()`. */
  readonly credentials = new CredentialBook();
  /** Calls waiting on `hold`, each with what lets it go on. */
  readonly #held = new Set<{ name: EndpointName; go: () => void }>();

  constructor(options: MockStateOptions = {}) {
    this.idempotency = new IdempotencyStore(() => this.config.idempotency, options.clock);
    this.initialCredits = options.credits ?? DEFAULT_CREDITS;
    this.credits = this.initialCredits;
    this.#seed = String(options.seed ?? 'assetgen');
    this.random = seededRandom(this.#seed);
    this.config = { ...structuredClone(DEFAULT_CONFIG), credits: this.initialCredits };
  }

  /** Back to the seeded state; issued keys and sessions stay valid. */
  reset(): void {
    this.credits = this.initialCredits;
    this.config = { ...structuredClone(DEFAULT_CONFIG), credits: this.initialCredits };
    this.ledger = [];
    this.files.clear();
    this.#variations.clear();
    this.runs.clear();
    this.videos.clear();
    this.#pendingFailures.clear();
    this.#pendingRefunds.clear();
    this.streams.clear();
    this.idempotency.clear();
    this.requests = 0;
    this.random = seededRandom(this.#seed);
    this.#releaseHeld();
  }

  /** Merges settings; `credits` sets the balance. */
  configure(patch: Partial<MockConfig>): void {
    if (patch.credits !== undefined) this.credits = patch.credits;
    if (patch.seed !== undefined) this.random = seededRandom(patch.seed);
    const faults = patch.faults ? { ...this.config.faults, ...patch.faults } : this.config.faults;
    const idempotency = patch.idempotency ? { ...this.config.idempotency, ...patch.idempotency } : this.config.idempotency;
    this.config = { ...this.config, ...patch, faults, idempotency, credits: this.credits };
    this.#releaseHeld();
  }

  // ── hold ───────────────────────────────────────────────────────────────────────────────────────
  /** What a call of `name` waits for while its endpoint is held; undefined when it is not. */
  heldUntilReleased(name: EndpointName): Promise<void> | undefined {
    if (!this.config.hold.includes(name)) return undefined;
    return new Promise((resolve) => void this.#held.add({ name, go: resolve }));
  }

  /** How many calls are waiting on `hold` now. */
  get held(): number {
    return this.#held.size;
  }

  /** Lets go the calls whose endpoint is no longer held. */
  #releaseHeld(): void {
    for (const entry of this.#held) {
      if (this.config.hold.includes(entry.name)) continue;
      this.#held.delete(entry);
      entry.go();
    }
  }

  // ── credits ────────────────────────────────────────────────────────────────────────────────────
  /** Deducts `amount` if the balance covers it; all-or-nothing. */
  charge(amount: number, reason: string, idempotencyKey?: string): boolean {
    if (amount === 0) return true;
    if (this.credits < amount) return false;
    this.credits -= amount;
    this.ledger.push({ amount: -amount, reason, at: now(), ...(idempotencyKey ? { idempotencyKey } : {}) });
    return true;
  }

  refund(amount: number, reason: string): void {
    this.credits += amount;
    this.ledger.push({ amount, reason, at: now() });
  }

  // ── records ────────────────────────────────────────────────────────────────────────────────────
  newId(prefix: string): string {
    return `${prefix}_${randomHex(8)}`;
  }

  agent(id: string): AgentRecord | undefined {
    return this.agents.find((agent) => agent.id === id);
  }

  workflow(id: string): WorkflowRecord | undefined {
    return this.workflows.find((workflow) => workflow.id === id);
  }

  /** A new file of a paid call: another picture of its prompt than the ones before it (see `FileRecord.variation`). */
  addFile(name: string, record: Omit<FileRecord, 'variation'>): void {
    const variation = this.#variations.next(`${record.kind}\u0000${record.agentId}`, record.prompt);
    this.files.set(name, { ...record, variation });
  }

  createRun(id: string, workflow: WorkflowRecord, overrides: Record<string, string>): RunRecord {
    const at = now();
    const run: RunRecord = {
      id,
      workflowId: workflow.id,
      status: 'queued',
      overrides,
      nodes: workflow.nodes.map((node) => ({ id: node.id, type: node.type, label: node.label, status: 'pending' })),
      completedNodes: 0,
      polls: 0,
      createdAt: at,
      updatedAt: at,
    };
    this.runs.set(run.id, run);
    return run;
  }

  /** One poll: finishes the next node (and the run with its last node); a finished run stays as is. */
  advanceRun(run: RunRecord): void {
    run.polls += 1;
    if (run.status === 'succeeded') return;
    const workflow = this.workflow(run.workflowId)!;
    const node = run.nodes[run.completedNodes];
    const spec = workflow.nodes[run.completedNodes];
    const promptFor = (id: string): string => run.overrides[id] ?? workflow.nodes.find((n) => n.id === id)?.prompt ?? '';
    const subject = workflow.nodes
      .filter((n) => n.type === 'prompt')
      .map((n) => promptFor(n.id))
      .join(', ');
    if (spec.type === 'image') {
      const name = `${run.id}-${node.id}.png`;
      this.addFile(name, { kind: 'image', agentId: workflow.agentId, prompt: `${subject} — ${node.label}` });
      node.output = { url: name, contentType: 'image/png' };
    } else {
      node.output = { text: spec.type === 'prompt' ? promptFor(node.id) : `${node.label}: ${subject}` };
    }
    node.status = 'succeeded';
    run.completedNodes += 1;
    run.status = run.completedNodes === run.nodes.length ? 'succeeded' : 'running';
    run.updatedAt = now();
  }

  createVideo(input: {
    id: string;
    agentId: string;
    prompt: string;
    durationSeconds: number;
    aspectRatio: string;
    charged: number;
  }): VideoRecord {
    const at = now();
    const outcome = this.config.videoOutcome === 'random' ? (this.random() < 0.5 ? 'fail' : 'succeed') : this.config.videoOutcome;
    const video: VideoRecord = {
      ...input,
      status: 'queued',
      steps: Math.max(1, Math.floor(this.config.videoSteps)),
      polls: 0,
      outcome,
      error: null,
      refund: null,
      createdAt: at,
      updatedAt: at,
    };
    if (outcome === 'fail') {
      // When its polls would have ended at the service's pace, plus a second's grace.
      video.failsAt = Date.now() + video.steps * this.config.videoPollAfterMs + 1_000;
      this.#pendingFailures.add(video);
    }
    this.videos.set(video.id, video);
    return video;
  }

  /** One poll: queued → processing → final after `steps` polls. A failure is refunded once (see #fail). */
  advanceVideo(video: VideoRecord): void {
    this.settleDueJobs();
    if (video.status === 'succeeded' || video.status === 'failed') return;
    video.polls += 1;
    video.updatedAt = now();
    if (video.polls < video.steps) {
      video.status = 'processing';
      return;
    }
    if (video.outcome === 'fail') {
      this.#fail(video);
      return;
    }
    video.status = 'succeeded';
    if (video.outcome === 'empty') return;
    video.fileName = `${video.id}${VIDEO_EXTENSION}`;
    this.addFile(video.fileName, { kind: 'video', agentId: video.agentId, prompt: video.prompt });
  }

  /** Fails every job, and refunds every failed one, whose time has come, whether or not anyone polled it. */
  settleDueJobs(at = Date.now()): void {
    if (this.#pendingFailures.size === 0 && this.#pendingRefunds.size === 0) return;
    for (const video of this.#pendingFailures) if ((video.failsAt ?? 0) <= at) this.#fail(video);
    for (const video of this.#pendingRefunds) if ((video.refundAt ?? 0) <= at) this.#refundVideo(video);
  }

  #fail(video: VideoRecord): void {
    this.#pendingFailures.delete(video);
    if (video.status === 'failed') return;
    video.status = 'failed';
    video.updatedAt = now();
    video.error = { code: 'generation_failed', message: 'The renderer could not produce this clip.' };
    if (this.config.videoRefundDelayMs === 0) {
      this.#refundVideo(video);
      return;
    }
    video.refundAt = Date.now() + this.config.videoRefundDelayMs;
    this.#pendingRefunds.add(video);
  }

  #refundVideo(video: VideoRecord): void {
    this.#pendingRefunds.delete(video);
    if (video.refund) return;
    this.refund(video.charged, `refund ${video.id}`);
    video.refund = { amount: video.charged, at: now() };
  }
}
