// The records the mock keeps (its own shapes, shown by GET /__mock/state; the API shapes are in
// records.ts).

export interface LedgerEntry {
  amount: number;
  reason: string;
  at: string;
  /** The Idempotency-Key of the call that paid, when it sent one (what a client can attribute a charge by). */
  idempotencyKey?: string;
}

export interface FileRecord {
  kind: 'image' | 'video';
  agentId: string;
  prompt: string;
  /**
   * How many files of this (kind, agent, prompt) the mock made before this one: each paid call
   * draws another picture, as a model's randomness does (0: the picture the prompt always drew).
   * Kept with the file, so a replayed answer, which names the same file, serves the same bytes.
   */
  variation: number;
}

export interface RunNodeState {
  id: string;
  type: string;
  label: string;
  status: 'pending' | 'succeeded';
  output?: { url: string; contentType: string } | { text: string };
}

export interface RunRecord {
  id: string;
  workflowId: string;
  status: 'queued' | 'running' | 'succeeded';
  overrides: Record<string, string>;
  nodes: RunNodeState[];
  completedNodes: number;
  polls: number;
  createdAt: string;
  updatedAt: string;
}

export interface VideoRecord {
  id: string;
  agentId: string;
  prompt: string;
  durationSeconds: number;
  aspectRatio: string;
  status: 'queued' | 'processing' | 'succeeded' | 'failed';
  steps: number;
  polls: number;
  /** Decided at submission; `empty` succeeds without an output (`output: null`). */
  outcome: 'succeed' | 'fail' | 'empty';
  fileName?: string;
  error: { code: string; message: string } | null;
  refund: { amount: number; at: string } | null;
  charged: number;
  createdAt: string;
  updatedAt: string;
  /** For a job that will fail: when it fails on the service's own clock (epoch ms), polled or not. */
  failsAt?: number;
  /** For a failed job whose refund is delayed (`videoRefundDelayMs`): when the service applies it (epoch ms). */
  refundAt?: number;
}
