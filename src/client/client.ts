// createClient: one typed method per endpoint of the service, plus waits, the stream and downloads.
import { ENDPOINTS, endpointPath, type EndpointName } from '../api/endpoints.js';
import { download } from './download.js';
import { MissingCredentialsError, InvalidArgumentError, UnexpectedResponseError } from './errors.js';
import { chargesEveryAttempt, HttpClient, isLoopback, lostAttemptsInfo, type Call, type Credential, type JsonResponse } from './http.js';
import { normalizeGeneration, normalizeRun, normalizeVideo, readCredits, requireCallerId, type ResponseInfo } from './normalize.js';
import { normalizeAgents, normalizeWorkflows } from './lists.js';
import { waitForRun, waitForVideo } from './poll.js';
import { streamEvents } from './sse.js';
import type { AssetgenClient, CallOptions, ClientOptions, Credits, GenerateRequest, SignalOptions, VideoRequest } from './types.js';

const DEFAULTS = {
  connectTimeoutMs: 10_000,
  responseTimeoutMs: 60_000,
  maxRetries: 2,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
} as const;

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidArgumentError(`Invalid base URL "${baseUrl}".`, 'Use an absolute http(s) URL, e.g. https://api.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidArgumentError(`Invalid base URL "${baseUrl}": only http and https are supported.`);
  }
  // Paths are joined to the base as relative references; a trailing slash keeps its own path.
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return url;
}

function assertSafeTransport(url: URL, options: ClientOptions): void {
  if (url.protocol !== 'http:' || isLoopback(url.hostname) || options.allowInsecureHttp) return;
  const secrets = [options.apiKey && 'an API key', options.sessionCookie && 'a session cookie'].filter(Boolean);
  if (secrets.length === 0) return;
  // In the SDK's words (its own option, no front end's flag): the CLI puts its way in the hint (cli/context.ts).
  throw new InvalidArgumentError(
    `Refusing to send ${secrets.join(' and ')} over plain http:// to ${url.host} (anyone on the network could read it).`,
    `Use an https:// base URL: plain http is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1), unless the client is created with \`allowInsecureHttp: true\`.`,
  );
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`Invalid ${name}: ${value}.`);
  return value;
}

export function createClient(options: ClientOptions): AssetgenClient {
  const base = parseBaseUrl(options.baseUrl);
  assertSafeTransport(base, options);
  const http = new HttpClient({
    baseUrl: base.href,
    apiKey: options.apiKey || undefined,
    sessionCookie: options.sessionCookie || undefined,
    connectTimeoutMs: positive(options.connectTimeoutMs, DEFAULTS.connectTimeoutMs, 'connectTimeoutMs'),
    responseTimeoutMs: positive(options.responseTimeoutMs, DEFAULTS.responseTimeoutMs, 'responseTimeoutMs'),
    maxRetries: Math.floor(positive(options.maxRetries, DEFAULTS.maxRetries, 'maxRetries')),
    retryBaseDelayMs: positive(options.retryBaseDelayMs, DEFAULTS.retryBaseDelayMs, 'retryBaseDelayMs'),
    retryMaxDelayMs: positive(options.retryMaxDelayMs, DEFAULTS.retryMaxDelayMs, 'retryMaxDelayMs'),
    maxRetryAfterMs: positive(options.maxRetryAfterMs, DEFAULTS.maxRetryAfterMs, 'maxRetryAfterMs'),
    userAgent: options.userAgent ?? `assetgen-client node/${process.versions.node}`,
    hooks: { onRequest: options.onRequest, onResponse: options.onResponse, onRetry: options.onRetry, onCredits: options.onCredits },
    dispatcher: options.dispatcher,
    connectionPool: options.connectionPool ?? 'auto',
  });

  /** The first credential in the endpoint's preference order that the client holds. */
  /**
   * The credential a call goes with. "Each call authenticated with a key deducts credits" (the
   * service's documentation): a call that makes nothing (a list, a poll) goes with the session when
   * the client has one, so following a job costs nothing; a paid call keeps the table's order.
   */
  function credentialFor(name: EndpointName): Credential {
    const accepted: readonly string[] = ENDPOINTS[name].auth;
    const order = ENDPOINTS[name].paid ? accepted : [...accepted].sort((a, b) => Number(b === 'session') - Number(a === 'session'));
    for (const kind of order) if (http.has(kind as Credential)) return kind as Credential;
    if (accepted.length === 1 && accepted[0] === 'session') {
      throw new MissingCredentialsError(
        `${ENDPOINTS[name].method} ${ENDPOINTS[name].path} needs a session cookie, and the client has none.`,
        'Sign in to the service in a browser and copy its session cookie (name=value); an API key does not work here.',
      );
    }
    throw new MissingCredentialsError(
      `${ENDPOINTS[name].method} ${ENDPOINTS[name].path} needs credentials: an API key${accepted.includes('session') ? ' or a session cookie' : ''}.`,
    );
  }

  /** The URLs of the endpoints without parameters, worked out once (each call used to parse one). */
  const fixedUrls = new Map<EndpointName, string>();
  function urlOf(name: EndpointName, params: Record<string, string>): string {
    const fixed = fixedUrls.get(name);
    if (fixed !== undefined) return fixed;
    // Relative to the base, so a base URL with a path prefix keeps it.
    const url = new URL(endpointPath(name, params).replace(/^\//, ''), base).href;
    if (!ENDPOINTS[name].path.includes(':')) fixedUrls.set(name, url);
    return url;
  }

  function call(name: EndpointName, params: Record<string, string>, body: unknown, o: CallOptions | undefined): Call {
    const spec = ENDPOINTS[name];
    return {
      method: spec.method,
      url: urlOf(name, params),
      credential: credentialFor(name),
      body,
      idempotencyKey: spec.paid ? (o?.idempotencyKey ?? http.newIdempotencyKey()) : undefined,
      // A key the client made, or one the caller says was never sent: a replay after a lost attempt is this call's charge.
      keyIsNew: spec.paid && (o?.idempotencyKey === undefined || o.keyIsNew === true),
      signal: o?.signal,
      mayRetry: o?.mayRetry,
      onUnanswered: o?.onUnanswered,
    };
  }

  /**
   * One JSON call, its answer read into a record by `read`; whatever it says about credits goes to
   * `onCredits`. An answer refused as a protocol error (a figure no account holds, a record that is
   * not one) still says what the call was charged when its headers did: the service took it.
   */
  async function json<T>(
    name: EndpointName,
    params: Record<string, string>,
    body: unknown,
    o: CallOptions | undefined,
    read: (body: unknown, info: ResponseInfo) => T,
  ): Promise<T> {
    const spec = call(name, params, body, o);
    const response = await http.json(spec);
    const info = responseInfo(spec, response);
    let credits: Credits;
    try {
      credits = readCredits(response.body, response.headers, info);
    } catch (error) {
      throw error instanceof UnexpectedResponseError ? http.refusedAnswer(error, response.headers, response.chargedThenLost) : error;
    }
    options.onCredits?.(credits);
    try {
      return read(response.body, info);
    } catch (error) {
      // Its charge is counted already (above): written on the refusal for a caller counting per call.
      if (error instanceof UnexpectedResponseError && credits.charged) error.charged ??= credits.charged;
      throw error;
    }
  }

  /** What an answer's record and credits are read with, the attempts its call lost (if any) weighed. */
  function responseInfo(spec: Call, response: JsonResponse): ResponseInfo {
    return {
      headers: response.headers,
      requestId: response.requestId,
      baseUrl: base.href,
      ...lostAttemptsInfo(spec, response.attemptsLost ?? 0, response.chargedThenLost),
    };
  }

  const client: AssetgenClient = {
    baseUrl: base.href.replace(/\/$/, ''),
    // The credential a poll would go with ('none' when the client has neither: a poll then fails unsent).
    pollsCharged: chargesEveryAttempt({ credential: http.has('apiKey') || http.has('session') ? credentialFor('getVideo') : 'none' }),

    async generate(req: GenerateRequest, o?: CallOptions) {
      if (http.has('apiKey')) {
        return json('generate', {}, { agentId: req.agentId, prompt: req.prompt }, o, normalizeGeneration);
      }
      if (http.has('session')) return client.generateWithSession(req, o);
      throw new MissingCredentialsError('Generating needs an API key (or a session cookie), and the client has neither.');
    },

    async generateWithSession(req: GenerateRequest, o?: CallOptions) {
      return json('sessionGenerate', {}, { agentId: req.agentId, prompt: req.prompt }, o, normalizeGeneration);
    },

    stream(req: GenerateRequest, o?: CallOptions) {
      // Built eagerly so a missing session fails at the call, not at the first iteration.
      const spec = call('stream', {}, { agentId: req.agentId, prompt: req.prompt }, o);
      return { [Symbol.asyncIterator]: () => streamEvents(http, spec, o?.signal) };
    },

    async listAgents(o?: SignalOptions) {
      return json('listAgents', {}, undefined, o, normalizeAgents);
    },

    async listWorkflows(o?: SignalOptions) {
      return json('listWorkflows', {}, undefined, o, normalizeWorkflows);
    },

    async runWorkflow(id: string, overrides?: Record<string, string>, o?: CallOptions) {
      const body = overrides && Object.keys(overrides).length > 0 ? { overrides } : {};
      return json('runWorkflow', { id: requireCallerId(id, 'The workflow id') }, body, o, normalizeRun);
    },

    async getRun(runId: string, o?: SignalOptions) {
      return json('getRun', { runId: requireCallerId(runId, 'The run id') }, undefined, o, normalizeRun);
    },

    waitForRun: (runId, o) => waitForRun((id, options) => client.getRun(id, options), requireCallerId(runId, 'The run id'), o),

    async createVideo(req: VideoRequest, o?: CallOptions) {
      const body: Record<string, unknown> = { prompt: req.prompt };
      if (req.agentId !== undefined) body.agentId = req.agentId;
      if (req.durationSeconds !== undefined) body.durationSeconds = req.durationSeconds;
      if (req.aspectRatio !== undefined) body.aspectRatio = req.aspectRatio;
      return json('createVideo', {}, body, o, normalizeVideo);
    },

    async getVideo(id: string, o?: SignalOptions) {
      return json('getVideo', { id: requireCallerId(id, 'The video job id') }, undefined, o, normalizeVideo);
    },

    waitForVideo: (id, o) => waitForVideo((jobId, options) => client.getVideo(jobId, options), requireCallerId(id, 'The video job id'), o),

    download: (url, dest, o) => download(http, url, dest, o),

    close: () => http.close(),
  };
  return client;
}
