// How the bytes travel. By default node's own http/https with a keep-alive agent: nothing extra to
// load (a command starts ~80 ms sooner than with undici's module graph). Once calls overlap (an SDK
// user with calls in flight), they all go through undici instead (transport-pooled.ts, loaded
// then), whose client costs ~40 µs less CPU per call: worth it over thousands of calls, not over a
// 1,000-image build, whose mix of calls and downloads runs cheaper on node:http alone (the CLI
// turns the pool off: ClientOptions.connectionPool). undici also when a proxy variable applies (its
// EnvHttpProxyAgent honours HTTP(S)_PROXY and NO_PROXY) or when the caller hands us a dispatcher.
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ConnectionPool } from './transport-pooled.js';
import { abortedError, excessError } from './transport-errors.js';
import type { Transport, WireRequest, WireResponse } from './transport-records.js';
import { timeoutError, watchSilence, withConnectTimeout } from './transport-timers.js';

export interface TransportSettings {
  connectTimeoutMs: number;
  /**
   * When calls go through undici's pooled client: once they overlap (`auto`, the default),
   * always, or never. The last two are for tests that hold both paths to the same behaviour.
   */
  pooling?: 'auto' | 'always' | 'never';
  dispatcher?: Dispatcher;
  env?: Record<string, string | undefined>;
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

export async function createTransport(settings: TransportSettings): Promise<Transport> {
  const env = settings.env ?? process.env;
  if (settings.dispatcher) return undiciTransport(settings.dispatcher, false);
  if (PROXY_VARIABLES.some((name) => env[name])) {
    const { EnvHttpProxyAgent } = await import('undici');
    return undiciTransport(new EnvHttpProxyAgent({ connect: { timeout: settings.connectTimeoutMs }, keepAliveTimeout: 30_000 }), true);
  }
  return new NodeTransport(settings.connectTimeoutMs, settings.pooling ?? 'auto');
}

async function undiciTransport(dispatcher: Dispatcher, owned: boolean): Promise<Transport> {
  const { request } = await import('undici');
  return {
    async send(wire) {
      const response = await request(wire.url, {
        method: wire.method,
        headers: wire.headers,
        body: wire.body,
        signal: wire.signal,
        dispatcher,
        headersTimeout: wire.headersTimeoutMs,
        bodyTimeout: wire.bodyTimeoutMs,
      });
      return { status: response.statusCode, headers: response.headers, body: response.body };
    },
    close: () => (owned ? dispatcher.close() : Promise.resolve()),
  };
}

/** Where a URL goes, as node's request options (what `http.request(url)` works out from it). */
interface Target {
  /** `scheme://host:port`, what undici's dispatch takes. */
  origin: string;
  secure: boolean;
  protocol: string;
  hostname: string;
  port: number | undefined;
  path: string;
  auth: string | undefined;
}

function targetOf(href: string): Target {
  const url = new URL(href);
  const hostname = url.hostname;
  return {
    origin: url.origin,
    secure: url.protocol === 'https:',
    protocol: url.protocol,
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: url.pathname + url.search,
    auth: url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
  };
}

/** Calls repeat their URLs (every generate goes to one): each is parsed once, up to this many. */
const TARGET_CACHE_SIZE = 256;

class NodeTransport implements Transport {
  // Keep-alive sockets, unlimited per host (node's default): a build's 16 calls in flight each keep
  // theirs, and a socket is back in the pool before the next call of its worker is made.
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #targets = new Map<string, Target>();
  readonly #connectTimeoutMs: number;
  readonly #pooling: 'auto' | 'always' | 'never';
  /** Calls sent through node:http and still waiting for their answer's headers. */
  #waiting = 0;
  #pool?: ConnectionPool;
  #poolLoading?: Promise<ConnectionPool>;
  #closed = false;

  constructor(connectTimeoutMs: number, pooling: 'auto' | 'always' | 'never') {
    this.#connectTimeoutMs = connectTimeoutMs;
    this.#pooling = pooling;
    this.#agents = {
      http: withConnectTimeout(new http.Agent({ keepAlive: true }), connectTimeoutMs),
      https: withConnectTimeout(new https.Agent({ keepAlive: true }), connectTimeoutMs),
    };
  }

  #target(href: string): Target {
    let target = this.#targets.get(href);
    if (!target) {
      if (this.#targets.size >= TARGET_CACHE_SIZE) this.#targets.clear();
      target = targetOf(href);
      this.#targets.set(href, target);
    }
    return target;
  }

  #loadPool(): Promise<ConnectionPool> {
    this.#poolLoading ??= import('./transport-pooled.js').then(({ ConnectionPool }) => {
      this.#pool = new ConnectionPool(this.#connectTimeoutMs);
      // Closed while undici loaded: nothing may outlive close().
      if (this.#closed) void this.#pool.close();
      return this.#pool;
    });
    return this.#poolLoading;
  }

  send(wire: WireRequest): Promise<WireResponse> {
    if (wire.signal?.aborted) return Promise.reject(abortedError());
    // Nothing outlives close(): node's agent would open new sockets after destroy().
    if (this.#closed) return Promise.reject(new Error('The transport is closed.'));
    const target = this.#target(wire.url);
    // A URL with credentials in it (`user:pass@`) stays with node's `auth` option.
    const poolable = target.auth === undefined && this.#pooling !== 'never';
    if (poolable) {
      if (this.#pool) return this.#pool.send(target, wire);
      // A second call while one still waits: calls overlap, so undici is worth loading. The calls
      // meanwhile wait for it (~80 ms) rather than open node:http sockets of their own: one
      // connection per call in flight, and the first call's.
      if (this.#pooling === 'always' || this.#waiting > 0 || this.#poolLoading) return this.#loadPool().then(() => this.send(wire));
      this.#waiting++;
      const settled = (): void => void this.#waiting--;
      const sent = this.#sendNode(target, wire);
      sent.then(settled, settled);
      return sent;
    }
    return this.#sendNode(target, wire);
  }

  #sendNode(target: Target, wire: WireRequest): Promise<WireResponse> {
    return new Promise((resolve, reject) => {
      const headers = wire.headers;
      if (wire.body !== undefined) headers['content-length'] = String(Buffer.byteLength(wire.body));
      const request = (target.secure ? https : http).request({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        auth: target.auth,
        method: wire.method,
        headers,
        agent: target.secure ? this.#agents.https : this.#agents.http,
      });
      // The signal is ours to apply, not node's: node's `signal` option destroys the socket even
      // after the answer is complete and the socket is back in the pool, where nobody listens.
      let response: http.IncomingMessage | undefined;
      const signal = wire.signal;
      if (signal) {
        const onAbort = (): void => {
          if (!response?.complete) request.destroy(abortedError());
        };
        signal.addEventListener('abort', onAbort, { once: true });
        request.once('close', () => signal.removeEventListener('abort', onAbort));
      }
      // One timer per call: the headers deadline, then (restarted) the body's longest silence.
      const timer = setTimeout(
        () =>
          response
            ? response.destroy(timeoutError(`The answer stalled for ${wire.bodyTimeoutMs} ms.`, 'BODY_TIMEOUT'))
            : request.destroy(timeoutError(`No answer within ${wire.headersTimeoutMs} ms.`, 'HEADERS_TIMEOUT')),
        wire.headersTimeoutMs,
      );
      const fail = (error: Error): void => {
        clearTimeout(timer);
        reject(error);
      };
      request.once('error', fail);
      request.once('response', (answer) => {
        response = answer;
        request.off('error', fail);
        // Errors after this point surface on the body stream, to whoever reads it; a body nobody
        // reads any more (done, or left early) must not turn a late abort into an uncaught error.
        request.on('error', (error) => {
          if (!answer.complete) answer.destroy(error);
          // Bytes past the announced end, read with the body: node's parser took them for the start
          // of a next answer and failed. The body was cut where the service said it ends: refuse it.
          else if (!answer.readableEnded && /^HPE_/.test(String((error as { code?: unknown }).code))) answer.destroy(excessError(wire));
        });
        answer.on('error', ignore);
        if (wire.bodyTimeoutMs > 0) watchSilence(answer, timer, wire);
        else clearTimeout(timer);
        resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: answer });
      });
      request.end(wire.body);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#agents.http.destroy();
    this.#agents.https.destroy();
    await this.#pool?.close();
  }
}

function ignore(): void {}

/** Lets go of a body we do not want (a redirect's, say). */
export function discard(body: Readable): void {
  body.destroy();
}
