// A client of a shared remote cache speaking the Turborepo remote-cache HTTP API (Vercel's, or the
// self-hosted `turborepo-remote-cache` server): HEAD, GET and PUT of /v8/artifacts/:hash with a
// Bearer token and the team as a query parameter, each artifact optionally signed with an
// x-artifact-tag. It knows nothing of the terminal or of builds: it stores and returns bytes, and
// says each problem through `onWarning`. A cache is a convenience, never a dependency: every failure
// is a miss and a warning, never an error; a failure of the server itself (down, slow, 401, 5xx, an
// answer larger than asked for) turns the cache off for the rest of the run, so a dead cache costs
// one warning and one timeout at most, not one per file.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { formatBytes, LIMITS } from '../client/limits.js';
import { redactUrl } from '../client/redact.js';

/** The environment variables that configure the cache (docs/cli.md "Environment variables"). */
export const REMOTE_CACHE_ENV = {
  url: 'ASSETGEN_REMOTE_CACHE_URL',
  token: 'ASSETGEN_REMOTE_CACHE_TOKEN',
  team: 'ASSETGEN_REMOTE_CACHE_TEAM',
  signatureKey: 'ASSETGEN_REMOTE_CACHE_SIGNATURE_KEY',
  readOnly: 'ASSETGEN_REMOTE_CACHE_READ_ONLY',
} as const;

/** The team sent when none is configured: the self-hosted server needs one, any name will do. */
export const DEFAULT_TEAM = 'assetgen';

export interface RemoteCacheConfig {
  /** The server's base URL (http or https), without credentials: `https://cache.example.com`. */
  url: string;
  token?: string;
  /** A Vercel team id (`team_…`, sent as teamId) or a slug (sent as slug). */
  team: string;
  /** With a key, every artifact is uploaded with its tag and one without a valid tag is a miss. */
  signatureKey?: string;
  /** Restore, never upload (as Turborepo's read-only mode). */
  readOnly: boolean;
}

/**
 * How long and how much (bounded like the service's answers, src/client/limits.ts): a cache that
 * does not answer within these is treated as down.
 */
export const CACHE_LIMITS = {
  connectMs: 5_000,
  /** Until the status line and headers of an answer. */
  headersMs: 10_000,
  /** Between two chunks of a body. */
  bodyIdleMs: 15_000,
  /** A whole request, plus one second per MiB expected (a slow drip never holds a build). */
  requestMs: 30_000,
  /** A spec entry (JSON): a few files' records, never near this. */
  entryBytes: 1 * 2 ** 20,
  /** A file restored: at most what the lock says, and never more than a download may be. */
  fileBytes: LIMITS.downloadBytes,
  /** Requests in flight at once. */
  concurrency: 8,
} as const;

/**
 * The artifact hash of a namespaced key. Turborepo's own hashes are hex strings; ours are the
 * SHA-256 of `assetgen-file-v1:<sha256 of the file>` or `assetgen-spec-v1:<spec hash>`, so an
 * assetgen artifact never collides with a Turborepo task's nor with another kind of ours, and the
 * server sees no file names.
 */
export const artifactHash = (kind: 'file' | 'spec', key: string): string => crypto.hash('sha256', `assetgen-${kind}-v1:${key}`, 'hex');

/**
 * Turborepo's artifact signature: HMAC-SHA256 with the key over the JSON `{"hash":…,"teamId":…}`
 * followed by the artifact's bytes, base64 without padding, sent and returned as x-artifact-tag.
 * The scheme of vercel/turborepo, crates/turborepo-cache/src/signature_authentication.rs
 * (ArtifactSignatureAuthentication: construct_metadata, generate_tag).
 */
export function artifactTag(key: string, team: string, hash: string, body: Uint8Array): string {
  const hmac = crypto.createHmac('sha256', key);
  hmac.update(JSON.stringify({ hash, teamId: team }));
  hmac.update(body);
  return hmac.digest('base64').replace(/=+$/, '');
}

/** The server failed (not one artifact): the cache is off for the rest of the run. */
class CacheDown extends Error {}

/** One artifact is not usable (wrong bytes, bad tag, too large for the server): a miss, warned. */
class ArtifactRefused extends Error {}

export class RemoteCache {
  readonly config: RemoteCacheConfig;
  /** The URL as it may be printed: no credentials, secret-looking query values masked. */
  readonly name: string;
  readonly #onWarning: (message: string) => void;
  #dispatcher?: Dispatcher;
  #down = false;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(config: RemoteCacheConfig, onWarning: (message: string) => void) {
    this.config = config;
    this.name = redactUrl(config.url).replace(/\/+$/, '');
    this.#onWarning = onWarning;
  }

  /** Off for this run: the server failed once, and says so once. */
  get down(): boolean {
    return this.#down;
  }

  /** Whether the cache holds the artifact (HEAD); false for every failure. */
  async has(hash: string): Promise<boolean> {
    const answer = await this.#request('HEAD', hash, { what: `artifact ${hash}`, maxBytes: 0 });
    return answer !== undefined;
  }

  /**
   * The artifact's bytes, checked: exactly `expect` (size and sha256) when given, at most
   * `maxBytes`, and with a valid tag when a signature key is set. Undefined for a miss.
   */
  async get(
    hash: string,
    what: string,
    limits: { maxBytes: number; expect?: { sha256: string; size: number } },
  ): Promise<Buffer | undefined> {
    const maxBytes = limits.expect ? limits.expect.size : limits.maxBytes;
    const answer = await this.#request('GET', hash, { what, maxBytes });
    if (!answer) return undefined;
    const { bytes, tag } = answer;
    try {
      if (this.config.signatureKey) {
        if (!tag) throw new ArtifactRefused(`${what} came without a signature (x-artifact-tag) while a signature key is set`);
        const wanted = Buffer.from(artifactTag(this.config.signatureKey, this.config.team, hash, bytes));
        const given = Buffer.from(tag);
        if (given.length !== wanted.length || !crypto.timingSafeEqual(given, wanted))
          throw new ArtifactRefused(`${what} has a signature that does not match the signature key`);
      }
      if (limits.expect) {
        const sha256 = crypto.hash('sha256', bytes, 'hex');
        if (bytes.length !== limits.expect.size || sha256 !== limits.expect.sha256)
          throw new ArtifactRefused(
            `${what}: the cache sent ${bytes.length} bytes of sha256 ${sha256.slice(0, 12)}…, not the ${limits.expect.size} bytes of ${limits.expect.sha256.slice(0, 12)}… assetgen.lock records`,
          );
      }
    } catch (error) {
      if (!(error instanceof ArtifactRefused)) throw error;
      this.#warn(`${error.message}: not used`);
      return undefined;
    }
    return bytes;
  }

  /** Stores an artifact (PUT, with its tag when a key is set); false when it was not stored. Never in read-only mode. */
  async put(hash: string, what: string, bytes: Uint8Array): Promise<boolean> {
    if (this.config.readOnly) return false;
    return (await this.#request('PUT', hash, { what, maxBytes: 0, body: bytes })) !== undefined;
  }

  /** Closes the connections (call once the run is done with the cache). */
  async close(): Promise<void> {
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    await dispatcher?.destroy().catch(() => {});
  }

  #warn(message: string): void {
    this.#onWarning(`Remote cache ${this.name}: ${message}.`);
  }

  /** The artifact's URL, with the team parameter as Turborepo sends it (a `team_…` id, else a slug). */
  #url(hash: string): string {
    const url = new URL(`v8/artifacts/${encodeURIComponent(hash)}`, `${this.config.url.replace(/\/+$/, '')}/`);
    url.searchParams.set(this.config.team.startsWith('team_') ? 'teamId' : 'slug', this.config.team);
    return url.href;
  }

  /** A few requests at a time, whoever asks (the build asks for hundreds at once). */
  async #slot<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= CACHE_LIMITS.concurrency) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#active += 1;
    try {
      return await work();
    } finally {
      this.#active -= 1;
      this.#waiting.shift()?.();
    }
  }

  /**
   * One request: undefined for a miss (404, or any failure, warned). A failure of the server
   * turns the cache off with one warning; later requests are misses without a request.
   */
  async #request(
    method: 'HEAD' | 'GET' | 'PUT',
    hash: string,
    options: { what: string; maxBytes: number; body?: Uint8Array },
  ): Promise<{ bytes: Buffer; tag?: string } | undefined> {
    if (this.#down) return undefined;
    return this.#slot(async () => {
      if (this.#down) return undefined;
      const deadline = AbortSignal.timeout(
        CACHE_LIMITS.requestMs + Math.ceil(Math.max(options.maxBytes, options.body?.length ?? 0) / 2 ** 20) * 1000,
      );
      try {
        return await this.#send(method, hash, options, deadline);
      } catch (error) {
        if (error instanceof ArtifactRefused) {
          this.#warn(error.message);
          return undefined;
        }
        if (!this.#down) {
          this.#down = true;
          const reason = deadline.aborted ? `no whole answer within ${CACHE_LIMITS.requestMs / 1000} s` : describe(error);
          this.#warn(`${reason}; not used for the rest of this run`);
        }
        return undefined;
      }
    });
  }

  async #send(
    method: 'HEAD' | 'GET' | 'PUT',
    hash: string,
    options: { what: string; maxBytes: number; body?: Uint8Array },
    signal: AbortSignal,
  ): Promise<{ bytes: Buffer; tag?: string } | undefined> {
    const { Agent, request } = await import('undici');
    this.#dispatcher ??= new Agent({
      connect: { timeout: CACHE_LIMITS.connectMs },
      headersTimeout: CACHE_LIMITS.headersMs,
      bodyTimeout: CACHE_LIMITS.bodyIdleMs,
    });
    const headers: Record<string, string> = {};
    if (this.config.token) headers.authorization = `Bearer ${this.config.token}`;
    if (options.body) {
      headers['content-type'] = 'application/octet-stream';
      if (this.config.signatureKey) headers['x-artifact-tag'] = artifactTag(this.config.signatureKey, this.config.team, hash, options.body);
    }
    const response = await request(this.#url(hash), {
      method,
      headers,
      body: options.body,
      signal,
      dispatcher: this.#dispatcher,
      // Redirects are not followed: a CDN read URL would need the token elsewhere; a miss is fine.
    });
    const { statusCode } = response;
    if (method !== 'GET' || statusCode < 200 || statusCode >= 300) {
      discard(response.body);
      if (statusCode >= 200 && statusCode < 300) return { bytes: Buffer.alloc(0) };
      if (statusCode === 404) return undefined;
      if (statusCode === 413) throw new ArtifactRefused(`${options.what} is larger than the server accepts (HTTP 413): not stored`);
      if (statusCode === 401 || statusCode === 403)
        throw new CacheDown(
          `HTTP ${statusCode}: the token (${REMOTE_CACHE_ENV.token}) is missing, wrong or may not ${method === 'PUT' ? 'write' : 'read'}`,
        );
      throw new CacheDown(`HTTP ${statusCode} for ${method} ${options.what}`);
    }
    const tagHeader = response.headers['x-artifact-tag'];
    const tag = Array.isArray(tagHeader) ? tagHeader[0] : tagHeader;
    const announced = Number(response.headers['content-length']);
    if (Number.isFinite(announced) && announced > options.maxBytes) {
      discard(response.body);
      throw new CacheDown(
        `${options.what}: the answer announces ${announced} bytes, more than the ${formatBytes(options.maxBytes)} expected; not read`,
      );
    }
    const bytes = await readAtMost(response.body, options.maxBytes, options.what);
    return { bytes, tag: typeof tag === 'string' ? tag.slice(0, 200) : undefined };
  }
}

/** Drops a body not read (its abort error has nowhere to go). */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** The body's bytes, refused (and the rest never read) as soon as they pass `limit`. */
async function readAtMost(body: Readable, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Ending the loop destroys the body: a 2 GiB answer costs one chunk past the limit.
    if (size > limit) throw new CacheDown(`${what}: the answer is larger than the ${formatBytes(limit)} expected; reading stopped there`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** A failure in a few words, with no URL (it may hold credentials) and no stack. */
function describe(error: unknown): string {
  if (error instanceof CacheDown) return error.message;
  const code = (error as { code?: string } | null)?.code;
  const cause = (error as { cause?: { code?: string } } | null)?.cause?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is the server running?)',
    ENOTFOUND: 'host not found',
    ECONNRESET: 'the connection was reset',
    UND_ERR_CONNECT_TIMEOUT: `no connection within ${CACHE_LIMITS.connectMs / 1000} s`,
    UND_ERR_HEADERS_TIMEOUT: `no answer within ${CACHE_LIMITS.headersMs / 1000} s`,
    UND_ERR_BODY_TIMEOUT: `the answer stalled for ${CACHE_LIMITS.bodyIdleMs / 1000} s`,
    UND_ERR_SOCKET: 'the connection was closed',
  };
  const name = (code && known[code]) ?? (cause && known[cause]);
  if (name) return name;
  const message = error instanceof Error ? error.message : String(error);
  return redactUrl(message).slice(0, 200);
}

/**
 * The cache configured by a flag or the environment (the URL, the token, the team, the signature
 * key, read-only), or undefined for none. Throws a plain Error for a URL that is not http(s): the
 * command turns it into a usage error. Credentials written into the URL are dropped (the token has
 * its own variable, and a printed URL never shows one).
 */
export function remoteCacheConfig(
  flags: { remoteCache?: string; remoteCacheReadOnly?: boolean },
  env: Record<string, string | undefined>,
): RemoteCacheConfig | undefined {
  const raw = flags.remoteCache ?? env[REMOTE_CACHE_ENV.url];
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${redactUrl(raw)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${redactUrl(raw)} is not an http(s) URL`);
  url.username = '';
  url.password = '';
  const readOnlyEnv = env[REMOTE_CACHE_ENV.readOnly];
  return {
    url: url.href,
    token: env[REMOTE_CACHE_ENV.token] || undefined,
    team: env[REMOTE_CACHE_ENV.team] || DEFAULT_TEAM,
    signatureKey: env[REMOTE_CACHE_ENV.signatureKey] || undefined,
    readOnly:
      Boolean(flags.remoteCacheReadOnly) || (readOnlyEnv !== undefined && !['', '0', 'false', 'no'].includes(readOnlyEnv.toLowerCase())),
  };
}
