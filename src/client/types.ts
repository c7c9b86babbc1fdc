// The client's public types. The service document shows no response bodies, so every record keeps
// the body as received in `raw`; the typed fields are what the client could read from it.
import type { Dispatcher } from 'undici';

export interface RequestTrace {
  method: string;
  url: string;
  /** Request headers with secrets masked. */
  headers: Record<string, string>;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
}

export interface ResponseTrace {
  method: string;
  url: string;
  status: number;
  requestId?: string;
  durationMs: number;
  /** Response headers with secrets masked. */
  headers: Record<string, string>;
}

export interface RetryTrace {
  /** The attempt about to be made (2 = first retry). */
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** `name=value` (sent as is) or a bare value (sent as `ag_session=value`). */
  sessionCookie?: string;
  /** Default 10 000. */
  connectTimeoutMs?: number;
  /** Time to the response headers (and between body chunks of JSON answers); default 60 000. Never cuts a stream or a download. */
  responseTimeoutMs?: number;
  /** Retries after the first attempt; default 2. */
  maxRetries?: number;
  /** Backoff base: the n-th retry waits a random time up to base·2^(n-1); default 500. */
  retryBaseDelayMs?: number;
  /** Backoff cap; default 8 000. */
  retryMaxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the retry comes after the client's own backoff instead; default 60 000. */
  maxRetryAfterMs?: number;
  /** Credentials over plain http:// to a non-loopback host are refused unless this is true. */
  allowInsecureHttp?: boolean;
  userAgent?: string;
  onRequest?: (info: RequestTrace) => void;
  onResponse?: (info: ResponseTrace) => void;
  onRetry?: (info: RetryTrace) => void;
  /** What each answer reported about credits (charged by that call, balance after it): one place to total a session's spending. */
  onCredits?: (credits: Credits) => void;
  /** Default: node:http(s) with keep-alive, and undici's HTTP/1.1 client once calls overlap (see `connectionPool`); undici's EnvHttpProxyAgent when HTTP(S)_PROXY is set (honours NO_PROXY). A dispatcher given here is used as is and never closed by `close()`. */
  dispatcher?: Dispatcher;
  /**
   * `auto` (default): once calls overlap (one sent while another waits for its answer), every call
   * goes through undici's HTTP/1.1 client, one connection per call in flight — about 40 µs less CPU
   * per call, for ~80 ms to load it: worth it for thousands of calls. `off`: node:http for every
   * call, which the CLI uses (a build's mix of calls and downloads runs cheaper there).
   */
  connectionPool?: 'auto' | 'off';
}

/** Credits reported by the service for one call: from the `x-credits-*` headers, else the body's `credits`. */
export interface Credits {
  /** What this call was charged (0 for a replayed idempotent answer). */
  charged?: number;
  remaining?: number;
  /**
   * A replayed idempotent answer: what the call that paid for it was charged (an earlier call with
   * the same key, from this or another process). Not this call's spending; a build counts it as
   * its asset's cost when nothing recorded that charge.
   */
  paidEarlier?: number;
  /**
   * Earlier attempts of this call that got no answer, whose charge is therefore not known (absent
   * when there were none). For a call without an Idempotency-Key (a poll, a list) made with the
   * API key: the service charges each such attempt that reaches it, and the client asked again after
   * the connection dropped or the answer was cut short, a call of its own. For a keyed call whose
   * key may have been used before (the caller's own, not `keyIsNew`), 1 when an attempt got no
   * answer and its headers never said what it charged: the replay that answered may be of that
   * attempt (this call's charge, `paidEarlier` then says how much) or of an earlier call's.
   * `charged` is this answer's alone: the ledger may hold up to this many calls' price more. A
   * session's polls (not charged) and calls whose every attempt was answered never carry it.
   */
  unknownCharges?: number;
  /**
   * Of `charged`, what the headers of this keyed call's earlier attempts said they charged before
   * their answers were lost (absent when none did). With a replay, `charged` is that alone; with a
   * fresh answer (a service that did not honour the key) it adds the answer's own: two calls' worth.
   */
  chargedThenLost?: number;
}

export interface Meta {
  requestId?: string;
  credits: Credits;
  /** The parsed body as received. */
  raw: unknown;
}

export interface Generation extends Meta {
  /** The service's id of the generation, when it gave one of the shape ids have (SAFE_ID); otherwise absent. */
  id?: string;
  status: string;
  /** Absolute URL of the asset (relative URLs are resolved against the base URL). */
  assetUrl: string;
  contentType?: string;
  /** Size of the asset as the service announced it (`output.bytes`), checked by the download. */
  assetBytes?: number;
  agentId?: string;
  prompt?: string;
}

export interface Agent {
  id: string;
  name?: string;
  kind?: 'image' | 'video' | (string & {});
  description?: string;
  raw: unknown;
}

export interface WorkflowNode {
  id: string;
  type?: string;
  label?: string;
  overridable: boolean;
  prompt?: string;
}

export interface Workflow {
  id: string;
  name?: string;
  description?: string;
  nodes: WorkflowNode[];
  overridableNodes: string[];
  raw: unknown;
}

/** A record of a list that the client left out; the rest of the list is returned without it. */
export interface SkippedRecord {
  /** Its id as the service sent it (cut to 200 characters), or null when it had none. */
  id: string | null;
  why: string;
}

/** A list read from the service: the usable records, and `skipped` naming the ones left out. */
export type RecordList<T> = T[] & { skipped: SkippedRecord[] };

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface RunOutput {
  nodeId?: string;
  url?: string;
  contentType?: string;
  text?: string;
}

export interface Run extends Meta {
  id: string;
  workflowId?: string;
  state: JobState;
  /** The status string as the service sent it. */
  status: string;
  completedNodes?: number;
  totalNodes?: number;
  currentNode?: { id: string; label?: string };
  outputs: RunOutput[];
  error?: { code?: string; message: string };
}

export interface VideoJob extends Meta {
  id: string;
  state: JobState;
  status: string;
  /** 0..1 */
  progress?: number;
  assetUrl?: string;
  contentType?: string;
  refunded?: boolean;
  /** Credits given back for a failed job, when the service says. */
  refundAmount?: number;
  error?: { code?: string; message: string };
  /** The service's hint for the next poll: body `pollAfterMs`, else `retry-after-ms`/`Retry-After`. */
  pollAfterMs?: number;
}

export type StreamEvent =
  | { type: 'start'; data: unknown }
  | { type: 'progress'; progress?: number; message?: string; data: unknown }
  | { type: 'result'; generation: Generation; data: unknown }
  | { type: 'done'; data: unknown }
  /** Any other event the service sends, passed through under its own name. */
  | { type: 'other'; name: string; data: unknown };

export interface CallOptions extends SignalOptions {
  /** For paid calls: reuse a key to make a repeated call free (the server replays the first answer). */
  idempotencyKey?: string;
  /**
   * The `idempotencyKey` has never been sent before this call (a key the caller just made). Then a
   * replayed answer after an attempt whose answer was lost is this call's own charge, and counted;
   * otherwise a replay is always charged 0 (an earlier call with the key paid).
   */
  keyIsNew?: boolean;
}

export interface SignalOptions {
  signal?: AbortSignal;
  /**
   * Asked before the client retries this call after an attempt failed, with how many attempts so far
   * got no answer (each may have been carried out, and charged: a poll made with the API key) and
   * what the headers of a keyed call's lost attempts said they charged (its retry is free only if
   * the service honours the key); false ends the call with the last attempt's error. A budget asks
   * whether those and one more still fit.
   */
  mayRetry?: (unansweredAttempts: number, chargedThenLost: number) => boolean;
  /**
   * Called once when the call fails after attempts that got no whole answer (stopped while out, the
   * connection lost, cut short, or refused), with how many, less one whose charge its headers said
   * (ChargedAnswerLostError). Each may have been carried out, and charged: for a call charged on
   * every attempt (a poll or a list made with the API key) the client has also reported them to
   * `onCredits` as `unknownCharges`; this tells the one call (a build's asset) its own. Per call,
   * never written on the error (an abort's error is the signal's reason, shared by every call of a
   * command).
   */
  onUnanswered?: (attempts: number) => void;
}

export interface GenerateRequest {
  agentId: string;
  prompt: string;
}

export interface VideoRequest {
  prompt: string;
  agentId?: string;
  durationSeconds?: number;
  aspectRatio?: string;
}

export interface WaitForRunOptions extends SignalOptions {
  /** Called after every poll with the run and the number of polls made so far. */
  onProgress?: (run: Run, polls: number) => void;
  /** Pause between polls while the run advances; default 0 (each poll advances it by one node). */
  intervalMs?: number;
  /** The record already in hand (from runWorkflow): a finished one is returned without polling. */
  initial?: Run;
}

export interface WaitForVideoOptions extends SignalOptions {
  onProgress?: (job: VideoJob) => void;
  /** A fixed pause between polls, overriding the service's hint and the backoff. */
  intervalMs?: number;
  /** Cap of the backoff; default 15 000. */
  maxIntervalMs?: number;
  initial?: VideoJob;
}

export interface DownloadOptions extends SignalOptions {
  /** Replace an existing file. */
  force?: boolean;
  /** The size the service announced for the asset: a body of another size is not saved. */
  expectedBytes?: number;
  /** The most to save when no size is announced (neither `expectedBytes` nor a Content-Length); default 1 GiB. */
  maxBytes?: number;
  onProgress?: (bytes: number, total?: number) => void;
  /** Also hash what is saved (`sha256` in the result): cheaper than reading the file back. */
  sha256?: boolean;
  /**
   * The destination is a fresh name the caller owns (its own temp file): written in place, created
   * exclusively (never over anything), with no temp file and rename of the download's own.
   */
  inPlace?: boolean;
}

export interface DownloadResult {
  /** The file written (absent when the destination was a stream). */
  path?: string;
  bytes: number;
  contentType?: string;
  /** Hex sha256 of the bytes saved, when asked for with `sha256: true`. */
  sha256?: string;
  /** The first bytes saved (up to 16): what the file is can be told without reading it back. */
  head?: Buffer;
}

export interface AssetgenClient {
  readonly baseUrl: string;
  /**
   * Whether this client's polls (getRun, getVideo) are charged calls: they go with the API key when
   * the client has no session (it prefers a session for calls that are not paid; the service charges
   * only key-authenticated calls). Then a poll's attempt that got no answer has a charge that is not
   * known, which the client reports to `onCredits` as `unknownCharges`.
   */
  readonly pollsCharged: boolean;
  /** With an API key: POST /api/v1/generate; with only a session: POST /api/ai/generate. */
  generate(req: GenerateRequest, o?: CallOptions): Promise<Generation>;
  /** POST /api/ai/generate (session). */
  generateWithSession(req: GenerateRequest, o?: CallOptions): Promise<Generation>;
  /** POST /api/ai/stream (session) as server-sent events; leaving the loop aborts the request. */
  stream(req: GenerateRequest, o?: CallOptions): AsyncIterable<StreamEvent>;
  /** GET /api/ai/agents (session). */
  listAgents(o?: SignalOptions): Promise<RecordList<Agent>>;
  /** One odd record (an id assetgen does not accept, say) is left out and named in `skipped`; the rest are listed. */
  listWorkflows(o?: SignalOptions): Promise<RecordList<Workflow>>;
  runWorkflow(id: string, overrides?: Record<string, string>, o?: CallOptions): Promise<Run>;
  /** One poll: it advances the run by one node. */
  getRun(runId: string, o?: SignalOptions): Promise<Run>;
  /** Polls until the run finishes: a run with k of N nodes done takes exactly N−k polls. Failed → JobFailedError. */
  waitForRun(runId: string, o?: WaitForRunOptions): Promise<Run>;
  createVideo(req: VideoRequest, o?: CallOptions): Promise<VideoJob>;
  getVideo(id: string, o?: SignalOptions): Promise<VideoJob>;
  /** Polls with backoff until the job finishes. Failed → JobFailedError (the service refunds it). */
  waitForVideo(id: string, o?: WaitForVideoOptions): Promise<VideoJob>;
  /** Streams an asset to a file (atomically, via a temp file) or to a writable stream (left open). */
  download(url: string, dest: string | NodeJS.WritableStream, o?: DownloadOptions): Promise<DownloadResult>;
  /** Releases pooled connections (only those of the client's own dispatcher). */
  close(): Promise<void>;
}
