// Downloads stream to disk through a temp file in the destination's directory, renamed at the end,
// so a reader never sees half a file and a failed download leaves nothing behind. Credentials go
// only to the service's own origin, and only when it asks for them.
import { createHash, randomBytes, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline as streamPipeline, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { renameRetrying } from '../files/rename.js';
import { contentDecoder } from './encoding.js';
import { redactUrl } from './redact.js';
import { ConnectionError, OutputFileError, UnexpectedResponseError } from './errors.js';
import { type Credential, type HttpClient, type OpenResponse } from './http.js';
import { abortError, RetryableFailure, transportError } from './failures.js';
import { writeBody } from './body-writer.js';
import { DownloadMeter } from './download-meter.js';
import { discard } from './transport.js';
import { header, num } from './values.js';
import type { DownloadOptions, DownloadResult } from './types.js';

const MAX_REDIRECTS = 5;

function fileExists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function refuseOverwrite(file: string): OutputFileError {
  return new OutputFileError(`${file} already exists.`, 'Choose another output path, or pass force to overwrite it.');
}

/**
 * Sends the GET, following redirects by hand: on another origin no credentials are ever sent.
 * On the service's origin, credentials are added only after a 401/403 (a key call may cost credits).
 */
async function openAsset(
  http: HttpClient,
  startUrl: string,
  signal: AbortSignal | undefined,
  attempt: number,
): Promise<OpenResponse & { url: string }> {
  const serviceOrigin = new URL(http.settings.baseUrl).origin;
  const preferred: Credential = http.has('apiKey') ? 'apiKey' : http.has('session') ? 'session' : 'none';
  let url = startUrl;
  let credential: Credential = 'none';
  for (let hop = 0; ; ) {
    const sameOrigin = new URL(url).origin === serviceOrigin;
    if (!sameOrigin) credential = 'none';
    let response: OpenResponse;
    try {
      response = await http.once({ method: 'GET', url, credential, signal, accept: '*/*', unboundedBody: true }, attempt);
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if ((status === 401 || status === 403) && sameOrigin && credential === 'none' && preferred !== 'none') {
        credential = preferred;
        continue;
      }
      throw error;
    }
    if (response.status >= 300 && response.status < 400) {
      discard(response.body);
      const location = header(response.headers, 'location');
      if (!location) throw new UnexpectedResponseError(`GET ${redactUrl(url)}: HTTP ${response.status} without a Location.`, undefined);
      if (++hop > MAX_REDIRECTS) throw new UnexpectedResponseError(`GET ${startUrl}: more than ${MAX_REDIRECTS} redirects.`, undefined);
      url = new URL(location, url).href;
      continue;
    }
    return { ...response, url };
  }
}

/** How many of the first bytes a result carries (enough to tell every saved format apart). */
const HEAD_BYTES = 16;

/** Bodies up to this size (by Content-Length, not encoded) are saved without streams. */
const WHOLE_BODY_MAX_BYTES = 1 << 20;

/**
 * Saves the asset at `rawUrl` into `dest` (a file, written through a temp file, or a stream). The
 * steps: the URL checked, the destination made ready, then per attempt the asset opened, its body
 * checked as it arrives and saved, the file put in place; a failed attempt is cleaned up and mapped.
 */
export async function download(
  http: HttpClient,
  rawUrl: string,
  dest: string | NodeJS.WritableStream,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  const { signal, force = false, inPlace = false } = options;
  const url = downloadUrl(http, rawUrl);
  const file = typeof dest === 'string' ? path.resolve(dest) : undefined;
  if (file && !inPlace) await prepareDestination(file, force);

  return http.retrying(signal, async (attempt) => {
    const response = await openAsset(http, url, signal, attempt);
    const intake = startIntake(response, options);
    // In place: the caller's own fresh name is the temp file (created exclusively, removed on failure).
    const temp = file ? (inPlace ? file : `${file}.part-${randomBytes(6).toString('hex')}`) : undefined;
    try {
      if (temp) await saveToFile(response, intake, temp, signal);
      else await saveToStream(response, intake, dest as NodeJS.WritableStream, signal);
      intake.meter.finish();
      if (file && temp && !inPlace) await putInPlace(temp, file, force);
    } catch (error) {
      // A temp file this download did not create (there already: EEXIST) is not its to remove.
      if (temp && (error as NodeJS.ErrnoException | null)?.code !== 'EEXIST') await fs.promises.rm(temp, { force: true });
      throw failedAttempt(error, { file, signal, url: response.url, written: intake.meter.written });
    }
    return resultOf(intake, file, header(response.headers, 'content-type'));
  });
}

/** The absolute http(s) URL of an asset, relative ones against the base URL. */
function downloadUrl(http: HttpClient, rawUrl: string): string {
  let url: string;
  try {
    url = new URL(rawUrl, http.settings.baseUrl).href;
  } catch {
    throw new UnexpectedResponseError(`Cannot download "${rawUrl}": not a URL.`, rawUrl);
  }
  if (!/^https?:$/.test(new URL(url).protocol))
    throw new UnexpectedResponseError(`Cannot download "${rawUrl}": only http and https URLs are supported.`, rawUrl);
  return url;
}

/** Refuses an existing file (without `force`) and makes the folder, before anything is read. */
async function prepareDestination(file: string, force: boolean): Promise<void> {
  if (!force && fileExists(file)) throw refuseOverwrite(file);
  // A build saves thousands of files into folders that exist: a stat each, not a recursive mkdir each.
  if (fs.statSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) return;
  try {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
  } catch (error) {
    throw new OutputFileError(
      `Cannot create the folder of ${file}: ${(error as Error).message}`,
      'Check the output path and its permissions.',
    );
  }
}

/**
 * One attempt's checks on the body: bytes as they arrive (against Content-Length), then as they are
 * saved (against the size the service announced), with a decoder between when the body is
 * encoded; past a limit a check returns its error, which ends the body (and the download) at once.
 * Saved bytes feed the hash and the first bytes kept for the type sniff.
 */
interface Intake {
  meter: DownloadMeter;
  decoder: (() => Transform) | undefined;
  hash: Hash | undefined;
  head: Buffer | undefined;
  /** Bytes as they arrive, before decoding. */
  arrive: (chunk: Buffer) => Error | undefined;
  /** Bytes as they are saved, decoded. */
  save: (chunk: Buffer) => Error | undefined;
  /** Not encoded: what arrives is what is saved, one check for both. */
  arriveAndSave: (chunk: Buffer) => Error | undefined;
  /** Tells the caller's onProgress what has arrived. */
  progress: () => void;
}

/** The checks of an opened asset; an encoding or a size refused before reading ends its body. */
function startIntake(response: OpenResponse & { url: string }, options: DownloadOptions): Intake {
  const { onProgress, expectedBytes, sha256 = false, maxBytes } = options;
  const total = num(header(response.headers, 'content-length'));
  let decoder: Intake['decoder'];
  let meter: DownloadMeter;
  try {
    decoder = decoderFor(header(response.headers, 'content-encoding'), response.url);
    const what = `GET ${redactUrl(response.url)}`;
    meter = new DownloadMeter({ what, expectedBytes, contentLength: total, encoded: decoder !== undefined, maxBytes });
    meter.check();
  } catch (error) {
    discard(response.body);
    throw error;
  }
  const intake: Intake = {
    meter,
    decoder,
    hash: sha256 ? createHash('sha256') : undefined,
    head: undefined,
    arrive: (chunk) => {
      const error = meter.receive(chunk.length);
      intake.progress();
      return error;
    },
    save: (chunk) => {
      const error = meter.write(chunk.length);
      if (!error) {
        intake.hash?.update(chunk);
        // The first bytes for the type sniff, however small the first chunks are.
        const head = intake.head;
        if (!head || head.length < HEAD_BYTES)
          intake.head = Buffer.concat([head ?? Buffer.alloc(0), chunk.subarray(0, HEAD_BYTES - (head?.length ?? 0))]);
      }
      return error;
    },
    arriveAndSave: (chunk) => {
      const error = meter.receive(chunk.length) ?? intake.save(chunk);
      if (!error) intake.progress();
      return error;
    },
    progress: () => onProgress?.(meter.received, total),
  };
  return intake;
}

/** A stream stage that runs a check on each chunk (its error ends the chain). */
function checkStage(check: (chunk: Buffer) => Error | undefined): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const error = check(chunk);
      callback(error, error ? undefined : chunk);
    },
  });
}

/** The body into `temp`: a small unencoded one read whole and written at once, else streamed into an open file. */
async function saveToFile(response: OpenResponse, intake: Intake, temp: string, signal: AbortSignal | undefined): Promise<void> {
  const total = num(header(response.headers, 'content-length'));
  if (!intake.decoder && total !== undefined && total <= WHOLE_BODY_MAX_BYTES) {
    await saveWhole(response, intake, temp, total);
    return;
  }
  // Opened before the body is read: the temp file exists exactly while we write it, and the
  // caller's cleanup removes it. Not openSync: a build saves many files at once, and each open
  // blocked all of them.
  const fd = await new Promise<number>((resolve, reject) =>
    fs.open(temp, 'wx', 0o644, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  let written = false;
  try {
    // Encoded: counted as it arrives, decoded, then written (a stage's failure ends the chain).
    const decoder = intake.decoder;
    const source = decoder ? streamPipeline(response.body, checkStage(intake.arrive), decoder(), () => {}) : response.body;
    await writeBody(source, fd, decoder ? intake.save : intake.arriveAndSave, signal);
    written = true;
  } finally {
    // A failed close after good writes is a failed save (some filesystems report late).
    await new Promise<void>((resolve, reject) => fs.close(fd, (error) => (error && written ? reject(error) : resolve())));
  }
}

/**
 * A small file (a build saves thousands) read whole and written in one call: three streams and a
 * file stream's open/close machinery per file cost more than the file.
 */
async function saveWhole(response: OpenResponse, intake: Intake, temp: string, total: number): Promise<void> {
  const { meter } = intake;
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) {
    chunks.push(chunk as Buffer);
    const error = meter.receive((chunk as Buffer).length) ?? meter.write((chunk as Buffer).length);
    if (error) throw error;
    intake.progress();
  }
  const data = Buffer.concat(chunks);
  intake.hash?.update(data);
  intake.head = Buffer.from(data.subarray(0, HEAD_BYTES));
  if (meter.received === total) await fs.promises.writeFile(temp, data, { flag: 'wx', mode: 0o644 });
}

/** The body into the caller's stream, never ended (stdout, say: it may have more to carry). */
async function saveToStream(
  response: OpenResponse,
  intake: Intake,
  target: NodeJS.WritableStream,
  signal: AbortSignal | undefined,
): Promise<void> {
  const stages = intake.decoder
    ? [checkStage(intake.arrive), intake.decoder(), checkStage(intake.save)]
    : [checkStage(intake.arriveAndSave)];
  await pipeline([response.body, ...stages, target], { signal, end: false });
}

/** The temp file renamed to its name, unless a file appeared there meanwhile (without `force`). */
async function putInPlace(temp: string, file: string, force: boolean): Promise<void> {
  if (!force && fileExists(file)) throw refuseOverwrite(file);
  // Not renameSync: a build saves many files at once, and a rename can take a millisecond.
  await renameRetrying(temp, file);
}

/**
 * What a failed attempt throws: the abort, a refusal or a local file error as they are, anything
 * else (the network) as a failure worth another attempt, unless a stream already took bytes.
 */
function failedAttempt(
  error: unknown,
  at: { file: string | undefined; signal: AbortSignal | undefined; url: string; written: number },
): unknown {
  if (at.signal?.aborted) return abortError(at.signal);
  if (error instanceof OutputFileError || error instanceof UnexpectedResponseError) return error;
  if (isLocalFileError(error)) {
    return new OutputFileError(
      `Cannot write ${at.file ?? 'the output'}: ${(error as Error).message}`,
      'Check the output path and its permissions.',
    );
  }
  const failure = error instanceof ConnectionError ? error : transportError(error, `GET ${redactUrl(at.url)}`);
  // A stream that already received bytes cannot take them back.
  if (!at.file && at.written > 0) return failure;
  return new RetryableFailure(failure, failure.message);
}

function resultOf(intake: Intake, file: string | undefined, contentType: string | undefined): DownloadResult {
  const result: DownloadResult = { bytes: intake.meter.written };
  if (file) result.path = file;
  if (contentType) result.contentType = contentType;
  if (intake.hash) result.sha256 = intake.hash.digest('hex');
  if (intake.head) result.head = intake.head;
  return result;
}

/**
 * A body sent with a Content-Encoding (we never ask for one) is decoded when it is one of the
 * common ones (encoding.ts); anything else is refused rather than saved as, say, gzip bytes named .png.
 */
function decoderFor(encoding: string | undefined, url: string): (() => Transform) | undefined {
  const decoder = contentDecoder(encoding);
  if (decoder !== null) return decoder;
  const name = (encoding ?? '').trim().toLowerCase();
  throw new UnexpectedResponseError(
    `GET ${redactUrl(url)}: the asset is sent with Content-Encoding "${name.slice(0, 40).replace(/[^\x20-\x7e]/g, '?')}", which assetgen cannot decode; it was not saved.`,
    undefined,
  );
}

function isLocalFileError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  return (
    typeof code === 'string' &&
    typeof syscall === 'string' &&
    ['open', 'write', 'close', 'rename', 'mkdir'].includes(syscall) &&
    code !== 'ECONNRESET'
  );
}
