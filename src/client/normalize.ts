// Lenient readers. The service document shows no response bodies, so each reader accepts the mock's
// shape plus the common variants, and throws UnexpectedResponseError (keeping the raw body) only
// when nothing usable is there.
import { SAFE_ID } from '../api/endpoints.js';
import { InvalidArgumentError, UnexpectedResponseError, serviceCode } from './errors.js';
import { excerpt } from './excerpt.js';
import { MAX_CREDITS, creditFigure, header, isObject, num, pick, retryAfterMs, str, type HeaderMap, type Json } from './values.js';
import type { Credits, Generation, JobState, Run, RunOutput, VideoJob } from './types.js';

/** What the transport knows about a response besides its body. */
export interface ResponseInfo {
  headers: HeaderMap;
  requestId?: string;
  /** Relative asset URLs are resolved against this. */
  baseUrl: string;
  /** See readCredits. */
  earlierAttemptLost?: boolean;
  /** See readCredits (JsonResponse.chargedThenLost). */
  chargedThenLost?: number;
  /** Earlier attempts of the call whose charge is not known: see Credits.unknownCharges. */
  unknownCharges?: number;
}

const STATES: Record<string, JobState> = {};
for (const [state, words] of Object.entries({
  succeeded: ['succeeded', 'success', 'successful', 'completed', 'complete', 'done', 'finished', 'ready'],
  failed: ['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'expired', 'rejected'],
  queued: ['queued', 'pending', 'submitted', 'created', 'waiting', 'scheduled'],
  running: ['running', 'processing', 'in_progress', 'started', 'active', 'generating'],
}) as [JobState, string[]][]) {
  for (const word of words) STATES[word] = state;
}

/** Maps a status word to one of four states; an unknown word counts as still running. */
export function normalizeState(status: string): JobState {
  return (
    STATES[
      status
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_')
    ] ?? 'running'
  );
}

export function isTerminal(state: JobState): boolean {
  return state === 'succeeded' || state === 'failed';
}

/** `{data: {...}}`, `{run: {...}}` and the like: the record inside a one-level envelope. */
function unwrap(body: unknown, keys: readonly string[]): unknown {
  if (!isObject(body)) return body;
  for (const key of keys) {
    const inner = body[key];
    if (isObject(inner) && (inner.id !== undefined || inner.status !== undefined)) return inner;
  }
  return body;
}

function resolveUrl(url: string, baseUrl: string): string {
  try {
    return new URL(url, baseUrl).href;
  } catch {
    return url;
  }
}

/** Asset URL from output.url | url | imageUrl | image_url | videoUrl | output (string) | outputs[0].url | result.url | data[0].url. */
export function findAssetUrl(record: Json): string | undefined {
  const output = record.output;
  if (isObject(output) && str(pick(output, ['url', 'href', 'uri']))) return str(pick(output, ['url', 'href', 'uri']));
  const direct = str(
    pick(record, ['url', 'assetUrl', 'asset_url', 'imageUrl', 'image_url', 'videoUrl', 'video_url', 'fileUrl', 'file_url']),
  );
  if (direct) return direct;
  if (typeof output === 'string' && output) return output;
  for (const listKey of ['outputs', 'data', 'images', 'assets']) {
    const list = record[listKey];
    if (!Array.isArray(list) || list.length === 0) continue;
    const first: unknown = list[0];
    if (typeof first === 'string' && first) return first;
    if (isObject(first)) {
      const url = str(pick(first, ['url', 'imageUrl', 'image_url', 'videoUrl', 'href']));
      if (url) return url;
    }
  }
  const result = record.result;
  if (isObject(result)) return findAssetUrl(result);
  if (typeof result === 'string' && /^(https?:)?\/|^[\w.-]+\//.test(result)) return result;
  return undefined;
}

function findContentType(record: Json): string | undefined {
  const output = record.output;
  if (isObject(output)) {
    const type = str(pick(output, ['contentType', 'content_type', 'mimeType', 'mime_type', 'mime']));
    if (type) return type;
  }
  return str(pick(record, ['contentType', 'content_type', 'mimeType', 'mime_type']));
}

/**
 * What one answer says about credits. The `x-credits-*` headers describe this exchange and win over
 * the body: a replayed idempotent answer (`Idempotent-Replayed: true`) carries the stored body of
 * the call that paid, while its headers say this call cost nothing. The body's figures fill in when
 * the headers are absent. `earlierAttemptLost`: an earlier attempt of this same call, with a key no
 * other call used, got no answer,
 * so the charge a replay reports was this call's own (the service carried out the lost attempt).
 * `chargedThenLost`: what the headers of this call's lost attempts said they charged (not replays):
 * this call's own charge whatever the key's history, the replay in hand adding its own (0).
 * `unknownCharges`: earlier attempts of an unkeyed call made with the API key that got no answer,
 * each of which the service may have charged (client.ts works it out); carried as it is.
 */
export function readCredits(
  body: unknown,
  headers: HeaderMap,
  options: { earlierAttemptLost?: boolean; chargedThenLost?: number; unknownCharges?: number } = {},
): Credits {
  let bodyCharged: number | undefined;
  let bodyRemaining: number | undefined;
  if (isObject(body)) {
    const block = isObject(body.credits) ? body.credits : isObject(body.usage) ? body.usage : undefined;
    bodyCharged =
      checkedCredits(block ? pick(block, ['charged', 'used', 'cost', 'spent']) : undefined, 'its charge', body) ??
      checkedCredits(pick(body, ['creditsCharged', 'credits_charged', 'cost']), 'its charge', body);
    bodyRemaining =
      checkedCredits(block ? pick(block, ['remaining', 'balance', 'left']) : undefined, 'the balance', body) ??
      checkedCredits(pick(body, ['creditsRemaining', 'credits_remaining', 'balance']), 'the balance', body);
  }
  const headerCharged = checkedCredits(header(headers, 'x-credits-charged'), 'its charge (X-Credits-Charged)', body);
  const remaining = checkedCredits(header(headers, 'x-credits-remaining'), 'the balance (X-Credits-Remaining)', body) ?? bodyRemaining;
  const credits: Credits = {};
  if (/^true$/i.test(header(headers, 'idempotent-replayed') ?? '')) {
    // The body is the stored answer of the call that paid; this exchange cost what the header says (0).
    if (options.chargedThenLost) credits.charged = options.chargedThenLost + (headerCharged ?? 0);
    else if (options.earlierAttemptLost && bodyCharged !== undefined) credits.charged = bodyCharged + (headerCharged ?? 0);
    else {
      credits.charged = headerCharged ?? 0;
      if (bodyCharged !== undefined) credits.paidEarlier = bodyCharged;
    }
  } else {
    // Not a replay after a lost attempt that said it charged: a service that ignored the key charged twice.
    const charged = headerCharged ?? bodyCharged;
    if (charged !== undefined || options.chargedThenLost) credits.charged = (charged ?? 0) + (options.chargedThenLost ?? 0);
  }
  if (remaining !== undefined) credits.remaining = remaining;
  if (options.chargedThenLost) credits.chargedThenLost = options.chargedThenLost;
  if (options.unknownCharges) credits.unknownCharges = options.unknownCharges;
  return credits;
}

/**
 * What an answer refused for another figure (an absurd balance, say) says this exchange charged,
 * when that charge itself is a sound figure and not a replay's: counted all the same, so a refused
 * answer never hides money the service took. undefined when it says none, or nothing sound.
 */
export function soundChargeOf(headers: HeaderMap): number | undefined {
  if (/^true$/i.test(header(headers, 'idempotent-replayed') ?? '')) return undefined;
  const figure = creditFigure(header(headers, 'x-credits-charged'));
  return typeof figure === 'number' && figure > 0 ? figure : undefined;
}

/**
 * A credit figure of an answer (see creditFigure): a number no account can hold — negative, not
 * finite, past MAX_CREDITS — is a protocol error that refuses the whole answer, never money to print.
 */
function checkedCredits(value: unknown, what: string, body: unknown): number | undefined {
  const figure = creditFigure(value);
  if (figure !== 'absurd') return figure;
  throw new UnexpectedResponseError(
    `The service's answer gives ${what} as ${excerpt(String(value))}, not a credit amount (0 to ${MAX_CREDITS.toLocaleString('en-US')}); the answer was not used.`,
    body,
    { hint: 'The service broke its protocol: report it with the request id.' },
  );
}

/**
 * The fields every record shares, first in its key order. Records are built on it with
 * Object.assign, not a spread: a spread and the optional fields added after it made V8 build a
 * fresh hidden class per record (~20 µs per generation, a tenth of a call's CPU).
 */
function meta(body: unknown, info: ResponseInfo) {
  return { requestId: info.requestId, credits: readCredits(body, info.headers, info), raw: body };
}

/** A job's error: its message bounded and printable (errors quote it), the record keeps the rest. */
function readError(value: unknown): { code?: string; message: string } | undefined {
  if (typeof value === 'string' && value) return { message: excerpt(value) };
  if (!isObject(value)) return undefined;
  const found = str(pick(value, ['message', 'detail', 'description', 'reason'])) ?? str(value.code);
  if (!found) return undefined;
  const message = excerpt(found);
  // A code the client does not accept (serviceCode) is left out: the message is what a reader needs.
  const { code } = serviceCode(pick(value, ['code', 'type']));
  return code ? { code, message } : { message };
}

export const UNSAFE_ID = 'has an id assetgen does not accept (1 to 128 letters, digits, _ . : - only)';

/**
 * An id the caller gives (a run or video job to wait for): one the service could have given, or
 * refused before it is sent — a 100,000-character id would otherwise be sent, refused by the
 * server, and echoed back whole into every message and printed command. The error quotes an excerpt.
 */
export function requireCallerId(value: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidArgumentError(`${what} is empty.`);
  if (!SAFE_ID.test(value))
    throw new InvalidArgumentError(
      `${what} is not an id the service gives (1 to 128 letters, digits, _ . : - only): ${JSON.stringify(excerpt(value.slice(0, CALLER_ID_SHOWN)))}${value.length > CALLER_ID_SHOWN ? `… (${value.length.toLocaleString('en-US')} characters)` : ''}.`,
    );
  return value;
}

/** How much of a refused id a message quotes. */
const CALLER_ID_SHOWN = 40;

function requireId(record: Json, keys: readonly string[], what: string, raw: unknown): string {
  const id = str(pick(record, keys));
  if (!id) throw new UnexpectedResponseError(`The service's ${what} has no id.`, raw);
  // An id reaches file names, the journal and printed commands: anything unusual is refused here.
  if (!SAFE_ID.test(id)) throw new UnexpectedResponseError(`The service's ${what} ${UNSAFE_ID}.`, raw);
  return id;
}

export function normalizeGeneration(body: unknown, info: ResponseInfo): Generation {
  const record = unwrap(body, ['generation', 'data', 'result']);
  if (!isObject(record))
    throw new UnexpectedResponseError('The service answered the generation with something other than a JSON object.', body);
  const url = findAssetUrl(record);
  if (!url) throw new UnexpectedResponseError('The generation result has no asset URL the client recognises.', body);
  const generation: Generation = Object.assign(meta(body, info), {
    status: str(pick(record, ['status', 'state'])) ?? 'succeeded',
    assetUrl: resolveUrl(url, info.baseUrl),
  });
  // An image's id is optional (its answer is the image): one not of the service's shape is left out,
  // never refused — the image is paid for — and never passed on (file names, the lock, sidecars).
  const id = str(pick(record, ['id', 'generationId', 'generation_id']));
  if (id && SAFE_ID.test(id)) generation.id = id;
  const contentType = findContentType(record);
  if (contentType) generation.contentType = contentType;
  const bytes = isObject(record.output) ? num(pick(record.output, ['bytes', 'size', 'sizeBytes', 'size_bytes'])) : undefined;
  if (bytes !== undefined && Number.isSafeInteger(bytes) && bytes >= 0) generation.assetBytes = bytes;
  const agentId = str(pick(record, ['agentId', 'agent_id', 'agent']));
  if (agentId) generation.agentId = agentId;
  const prompt = str(record.prompt);
  if (prompt) generation.prompt = prompt;
  return generation;
}

function nodeOutput(node: Json, baseUrl: string): RunOutput | undefined {
  const output = node.output;
  const nodeId = str(pick(node, ['id', 'nodeId', 'node_id']));
  if (isObject(output)) {
    const url = str(pick(output, ['url', 'href']));
    const text = str(output.text);
    if (!url && !text) return undefined;
    return clean({ nodeId, url: url && resolveUrl(url, baseUrl), contentType: findContentType(node), text });
  }
  if (typeof output === 'string' && output) return clean({ nodeId, url: resolveUrl(output, baseUrl) });
  return undefined;
}

export function clean<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

export function normalizeRun(body: unknown, info: ResponseInfo): Run {
  const record = unwrap(body, ['run', 'data']);
  if (!isObject(record)) throw new UnexpectedResponseError('The service answered with a run that is not a JSON object.', body);
  const id = requireId(record, ['id', 'runId', 'run_id'], 'run record', body);
  const nodes = Array.isArray(record.nodes) ? record.nodes.filter(isObject) : undefined;
  const status = str(pick(record, ['status', 'state']));
  const totalNodes = num(pick(record, ['totalNodes', 'total_nodes', 'nodeCount', 'node_count'])) ?? nodes?.length;
  const completedNodes =
    num(pick(record, ['completedNodes', 'completed_nodes', 'nodesCompleted', 'completed'])) ??
    nodes?.filter((node) => typeof node.status === 'string' && normalizeState(node.status) === 'succeeded').length;
  if (!status && (totalNodes === undefined || completedNodes === undefined)) {
    throw new UnexpectedResponseError('The run record has no status the client recognises.', body);
  }
  // Without a status word, a run whose nodes are all done is finished.
  const state: JobState = status ? normalizeState(status) : completedNodes! >= totalNodes! ? 'succeeded' : 'running';
  let outputs: RunOutput[];
  if (Array.isArray(record.outputs)) {
    outputs = record.outputs.flatMap((item): RunOutput[] => {
      if (typeof item === 'string') return [{ url: resolveUrl(item, info.baseUrl) }];
      if (!isObject(item)) return [];
      const url = str(pick(item, ['url', 'href']));
      return [
        clean({
          nodeId: str(pick(item, ['nodeId', 'node_id', 'node'])),
          url: url && resolveUrl(url, info.baseUrl),
          contentType: findContentType(item),
          text: str(item.text),
        }),
      ];
    });
  } else {
    outputs = (nodes ?? []).flatMap((node) => nodeOutput(node, info.baseUrl) ?? []);
  }
  const run: Run = Object.assign(meta(body, info), { id, state, status: status ?? state, outputs });
  const workflowId = str(pick(record, ['workflowId', 'workflow_id', 'workflow']));
  if (workflowId) run.workflowId = workflowId;
  if (totalNodes !== undefined) run.totalNodes = totalNodes;
  if (completedNodes !== undefined) run.completedNodes = completedNodes;
  const current = record.currentNode ?? record.current_node;
  if (isObject(current) && str(current.id)) run.currentNode = clean({ id: str(current.id)!, label: str(pick(current, ['label', 'name'])) });
  const error = readError(record.error);
  if (error) run.error = error;
  return run;
}

export function normalizeVideo(body: unknown, info: ResponseInfo): VideoJob {
  const record = unwrap(body, ['job', 'video', 'data']);
  if (!isObject(record)) throw new UnexpectedResponseError('The service answered with a video job that is not a JSON object.', body);
  const id = requireId(record, ['id', 'jobId', 'job_id', 'videoId', 'video_id'], 'video job record', body);
  const status = str(pick(record, ['status', 'state']));
  if (!status) throw new UnexpectedResponseError('The video job has no status the client recognises.', body);
  const job: VideoJob = Object.assign(meta(body, info), { id, state: normalizeState(status), status });
  let progress = num(record.progress);
  if (progress !== undefined) {
    if (progress > 1) progress /= 100; // a percentage
    job.progress = Math.min(1, Math.max(0, progress));
  }
  const url = findAssetUrl(record);
  if (url) job.assetUrl = resolveUrl(url, info.baseUrl);
  const contentType = findContentType(record);
  if (contentType) job.contentType = contentType;
  const refund = record.refund;
  const refunded = typeof record.refunded === 'boolean' ? record.refunded : isObject(refund) ? true : undefined;
  if (refunded !== undefined) job.refunded = refunded;
  const refundAmount = isObject(refund) ? checkedCredits(refund.amount, 'the refund', body) : undefined;
  if (refundAmount !== undefined) job.refundAmount = refundAmount;
  const error = readError(record.error);
  if (error) job.error = error;
  const pollAfterMs = num(pick(record, ['pollAfterMs', 'poll_after_ms', 'retryAfterMs'])) ?? retryAfterMs(info.headers);
  if (pollAfterMs !== undefined && pollAfterMs >= 0) job.pollAfterMs = pollAfterMs;
  return job;
}
