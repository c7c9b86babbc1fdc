// Downloads stream to disk through a temp file in the destination's directory, renamed at the end,
// so a reader never sees half a file and a failed download leaves nothing behind. Credentials go
// only to the service's own origin, and only when it asks for them.
import { createHash, randomBytes, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline as streamPipeline, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
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
  for (let hop = 0; ;) {
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

export async function download(
  http: HttpClient,
  rawUrl: string,
  dest: string | NodeJS.WritableStream,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  const { signal, force = false, onProgress, expectedBytes, sha256 = false, maxBytes, inPlace = false } = options;
  let url: string;
  try {
    url = new URL(rawUrl, http.settings.baseUrl).href;
  } catch {
    throw new UnexpectedResponseError(`Cannot download "${rawUrl}": not a URL.`, rawUrl);
  }
  if (!/^https?:$/.test(new URL(url).protocol))
    throw new UnexpectedResponseError(`Cannot download "${rawUrl}": only http and https URLs are supported.`, rawUrl);
  const target = dest;
  const file = typeof target === 'string' ? path.resolve(target) : undefined;
  if (file && !inPlace && !force && fileExists(file)) throw refuseOverwrite(file);
  // A build saves thousands of files into folders that exist: a stat each, not a recursive mkdir each.
  if (file && !inPlace && !fs.statSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) {
    try {
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
    } catch (error) {
      throw new OutputFileError(
        `Cannot create the folder of ${file}: ${(error as Error).message}`,
        'Check the output path and its permissions.',
      );
    }
  }

  return http.retrying(signal, async (attempt) => {
    const response = await openAsset(http, url, signal, attempt);
    const total = num(header(response.headers, 'content-length'));
    const contentType = header(response.headers, 'content-type');
    let decoder: ReturnType<typeof decoderFor>;
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
    const hash: Hash | undefined = sha256 ? createHash('sha256') : undefined;
    let head: Buffer | undefined;
    // Bytes as they arrive (checked against Content-Length), then as they are saved (checked
    // against the size the service announced), with a decoder between when the body is encoded;
    // past a limit the check fails, which ends the body (and the download) at once.
    const arrive = (chunk: Buffer): Error | undefined => {
      const error = meter.receive(chunk.length);
      onProgress?.(meter.received, total);
      return error;
    };
    const save = (chunk: Buffer): Error | undefined => {
      const error = meter.write(chunk.length);
      if (!error) {
        hash?.update(chunk);
        // The first bytes for the type sniff, however small the first chunks are.
        if (!head || head.length < HEAD_BYTES)
          head = Buffer.concat([head ?? Buffer.alloc(0), chunk.subarray(0, HEAD_BYTES - (head?.length ?? 0))]);
      }
      return error;
    };
    // Not encoded: what arrives is what is saved, one check for both.
    const arriveAndSave = (chunk: Buffer): Error | undefined => {
      const error = meter.receive(chunk.length) ?? save(chunk);
      if (!error) onProgress?.(meter.received, total);
      return error;
    };
    const stage = (check: (chunk: Buffer) => Error | undefined): Transform =>
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          const error = check(chunk);
          callback(error, error ? undefined : chunk);
        },
      });
    // In place: the caller's own fresh name is the temp file (created exclusively, removed on failure).
    const temp = file ? (inPlace ? file : `${file}.part-${randomBytes(6).toString('hex')}`) : undefined;
    try {
      if (temp && !decoder && total !== undefined && total <= WHOLE_BODY_MAX_BYTES) {
        // A small file (a build saves thousands) is read whole and written in one call: three
        // streams and a file stream's open/close machinery per file cost more than the file.
        const chunks: Buffer[] = [];
        for await (const chunk of response.body) {
          chunks.push(chunk as Buffer);
          const error = meter.receive((chunk as Buffer).length) ?? meter.write((chunk as Buffer).length);
          if (error) throw error;
          onProgress?.(meter.received, total);
        }
        const data = Buffer.concat(chunks);
        hash?.update(data);
        head = Buffer.from(data.subarray(0, HEAD_BYTES));
        if (meter.received === total) await fs.promises.writeFile(temp, data, { flag: 'wx', mode: 0o644 });
      } else if (temp) {
        // Opened before the body is read: the temp file exists exactly while we write it, and
        // the cleanup below removes it. Not openSync: a build saves many files at once, and each
        // open blocked all of them.
        const fd = await new Promise<number>((resolve, reject) =>
          fs.open(temp, 'wx', 0o644, (error, opened) => (error ? reject(error) : resolve(opened))),
        );
        let written = false;
        try {
          // Encoded: counted as it arrives, decoded, then written (a stage's failure ends the chain).
          const source = decoder ? streamPipeline(response.body, stage(arrive), decoder(), () => {}) : response.body;
          await writeBody(source, fd, decoder ? save : arriveAndSave, signal);
          written = true;
        } finally {
          // A failed close after good writes is a failed save (some filesystems report late).
          await new Promise<void>((resolve, reject) => fs.close(fd, (error) => (error && written ? reject(error) : resolve())));
        }
      } else {
        // Never end the caller's stream (stdout, say): it may have more to carry.
        const stages = decoder ? [stage(arrive), decoder(), stage(save)] : [stage(arriveAndSave)];
        await pipeline([response.body, ...stages, target as NodeJS.WritableStream], { signal, end: false });
      }
      meter.finish();
      if (file && temp && !inPlace) {
        if (!force && fileExists(file)) throw refuseOverwrite(file);
        // Not renameSync: a build saves many files at once, and a rename can take a millisecond.
        await fs.promises.rename(temp, file);
      }
    } catch (error) {
      // A temp file this download did not create (there already: EEXIST) is not its to remove.
      if (temp && (error as NodeJS.ErrnoException | null)?.code !== 'EEXIST') await fs.promises.rm(temp, { force: true });
      if (signal?.aborted) throw abortError(signal);
      if (error instanceof OutputFileError || error instanceof UnexpectedResponseError) throw error;
      if (isLocalFileError(error)) {
        throw new OutputFileError(
          `Cannot write ${file ?? 'the output'}: ${(error as Error).message}`,
          'Check the output path and its permissions.',
        );
      }
      const failure = error instanceof ConnectionError ? error : transportError(error, `GET ${redactUrl(response.url)}`);
      // A stream that already received bytes cannot take them back.
      if (!file && meter.written > 0) throw failure;
      throw new RetryableFailure(failure, failure.message);
    }
    const result: DownloadResult = { bytes: meter.written };
    if (file) result.path = file;
    if (contentType) result.contentType = contentType;
    if (hash) result.sha256 = hash.digest('hex');
    if (head) result.head = head;
    return result;
  });
}

/**
 * A body sent with a Content-Encoding (we never ask for one) is decoded when it is one of the
 * common ones; anything else is refused rather than saved as, say, gzip bytes named .png.
 */
function decoderFor(encoding: string | undefined, url: string): (() => Transform) | undefined {
  const name = (encoding ?? '').trim().toLowerCase();
  if (name === '' || name === 'identity') return undefined;
  if (name === 'gzip' || name === 'x-gzip') return () => zlib.createGunzip();
  if (name === 'deflate') return () => zlib.createInflate();
  if (name === 'br') return () => zlib.createBrotliDecompress();
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
