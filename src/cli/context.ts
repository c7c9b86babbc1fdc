// What every command receives: parsed global options, the output channels, a cancellation signal,
// and lazily created service access. Commands stay thin: parse → client → render.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AssetgenClient, ClientOptions, Credits } from '../client/types.js';
import { InvalidArgumentError, MissingCredentialsError } from '../client/errors.js';
import { redactUrl } from '../client/redact.js';
import { ENV, resolveCredentials, type ResolvedCredentials } from '../config/credentials.js';
import { JobJournal } from '../config/journal.js';
import { CreditTally } from './credits.js';
import { anyOf, CLI, type FrontEnd } from './front-end.js';
import { createStyle, Output, type Style } from '../ui/output.js';

export interface GlobalOptions {
  baseUrl?: string;
  mock: boolean;
  json: boolean;
  quiet: boolean;
  color: boolean;
  input: boolean;
  timeout?: number;
  verbose: boolean;
  allowInsecureHttp: boolean;
  /** --preview's value (`auto` when bare); undefined when not given (ASSETGEN_PREVIEW may set one). */
  preview?: string;
}

export interface IO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

interface ContextInit {
  globals: GlobalOptions;
  io: IO;
  env: Record<string, string | undefined>;
  cwd: string;
  signal: AbortSignal;
  /** How long a call in flight when the command stops gets to answer; its owner's default when not set (tests shorten it). */
  answerGraceMs?: number;
  /** The waits between a call's attempts; the client's defaults when not set (tests shorten them). */
  retryTiming?: RetryTiming;
}

/** The client's waits between a call's attempts (ClientOptions). */
export type RetryTiming = Pick<ClientOptions, 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'maxRetryAfterMs'>;

interface MockService {
  url: string;
  apiKey: string;
  sessionCookie: string;
  close(): Promise<void>;
}

interface SharedState {
  cleanups: (() => Promise<void>)[];
  mock?: Promise<MockService>;
}

/** Where a job being followed stands: one call per poll (a run's node, a video's state). */
export interface JobProgress {
  kind: 'run' | 'video';
  id: string;
  state: string;
  /** Nodes done (run) or a fraction 0..1 (video), when known. */
  progress?: number;
  /** Nodes in all (run) or 1 (video), when known. */
  total?: number;
  message: string;
}

/** What a call inside a long-lived command (the MCP server) changes of its parent context. */
export interface CallInit {
  io: IO;
  signal: AbortSignal;
  globals?: Partial<GlobalOptions>;
  onJobProgress?: (update: JobProgress) => void;
  /** The folder every output of the call must stay inside (src/files/confine.ts); the MCP server's working directory. */
  outputRoot?: string;
  /** The words its messages use for options and commands: the tool's own arguments (front-end.ts). */
  frontEnd?: FrontEnd;
}

/**
 * The tally of the call a charge belongs to, when one client serves several calls at once: a
 * build's assets share one client (one connection pool) and each still reports what it cost.
 */
const spendingCall = new AsyncLocalStorage<CreditTally>();

/**
 * The client's refusal of credentials over plain http:// to a host that is not loopback, in the
 * front end's words: the SDK's hint names its own option (`allowInsecureHttp`), which no one at a
 * command line or behind an MCP tool can give; they get theirs. Only that refusal is an
 * InvalidArgumentError of createClient for such a URL (the URL itself is valid). Other errors pass.
 */
function plainHttpInOwnWords(error: unknown, baseUrl: string, frontEnd: FrontEnd, isLoopback: (host: string) => boolean): unknown {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (error instanceof InvalidArgumentError && url?.protocol === 'http:' && !isLoopback(url.hostname))
    error.hint = `Use an https:// base URL: plain http is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1). To send it to ${url.host} anyway, ${frontEnd.allowPlainHttp}.`;
  return error;
}

/** What a command needs to talk to the service. */
export type CredentialNeed = 'any' | 'session';

export class CommandContext {
  readonly globals: GlobalOptions;
  readonly io: IO;
  readonly env: Record<string, string | undefined>;
  readonly cwd: string;
  readonly out: Output;
  /** Aborted on Ctrl-C (reason: AbortedError) or when --timeout runs out (reason: TimeoutError). */
  readonly signal: AbortSignal;
  /** What this command spent (submission and polls), reported as `credits` in --json. */
  readonly credits = new CreditTally();
  readonly #init: ContextInit;
  /** Shared with derived contexts: one in-process mock and one cleanup list per command run. */
  readonly #shared: SharedState;
  /** Told of every poll of a job being followed (the MCP server turns them into notifications). */
  readonly onJobProgress?: (update: JobProgress) => void;
  /**
   * Where outputs must stay (real paths, src/files/confine.ts) when the caller decides it (an MCP
   * call); otherwise the folder `-o` names.
   */
  readonly outputRoot?: string;
  /** Whose words messages use: the command line's flags, or an MCP tool's arguments. */
  readonly frontEnd: FrontEnd;
  /**
   * How long a build's paid call or poll in flight at Ctrl-C or --timeout gets to answer, when the
   * runtime sets it (tests); otherwise the build's own bound (commands/project/pool.ts).
   */
  readonly answerGraceMs?: number;
  #journal?: JobJournal;

  /** A context whose output styles suit its terminal (chalk is loaded only when colours are on). */
  static async create(init: ContextInit): Promise<CommandContext> {
    const style = await createStyle(
      { json: init.globals.json, quiet: init.globals.quiet, color: init.globals.color, env: init.env },
      init.io.stderrIsTTY,
    );
    return new CommandContext(init, style);
  }

  private constructor(
    init: ContextInit,
    style: Style,
    shared: SharedState = { cleanups: [] },
    call: { onJobProgress?: (update: JobProgress) => void; journal?: JobJournal; outputRoot?: string; frontEnd?: FrontEnd } = {},
  ) {
    this.#init = init;
    this.#shared = shared;
    this.onJobProgress = call.onJobProgress;
    this.outputRoot = call.outputRoot;
    this.frontEnd = call.frontEnd ?? CLI;
    this.#journal = call.journal;
    this.globals = init.globals;
    this.io = init.io;
    this.env = init.env;
    this.cwd = init.cwd;
    this.signal = init.signal;
    this.answerGraceMs = init.answerGraceMs;
    this.out = new Output(
      { stdout: init.io.stdout, stderr: init.io.stderr, stderrIsTTY: init.io.stderrIsTTY },
      { json: init.globals.json, quiet: init.globals.quiet, env: init.env },
      style,
    );
  }

  /** Prompts are allowed only with a terminal on both ends and without --no-input. */
  get interactive(): boolean {
    return this.globals.input && this.io.stdinIsTTY && this.io.stderrIsTTY;
  }

  /** The same run with some global options changed (the demo uses it to drive other commands). */
  derive(globals: Partial<GlobalOptions>): CommandContext {
    return new CommandContext({ ...this.#init, globals: { ...this.globals, ...globals } }, this.out.style, this.#shared);
  }

  /**
   * One call of a long-lived command (a tool call of `assetgen mcp`): its own IO, signal, credit
   * tally and clients (closed by its own cleanup), sharing this context's mock and journal. Start
   * the mock (mockService) on this context first, so it outlives the calls.
   */
  forCall(call: CallInit): CommandContext {
    const init = { ...this.#init, io: call.io, signal: call.signal, globals: { ...this.globals, ...call.globals } };
    const shared: SharedState = { cleanups: [], mock: this.#shared.mock };
    return new CommandContext(init, this.out.style, shared, {
      onJobProgress: call.onJobProgress,
      journal: this.journal,
      outputRoot: call.outputRoot ?? this.outputRoot,
      frontEnd: call.frontEnd ?? this.frontEnd,
    });
  }

  /**
   * Runs `work` (this call's part, on a client of the context it was derived from) so that what
   * that client charges meanwhile is counted in this context's `credits` as well as the parent's.
   */
  spendOn<T>(work: () => Promise<T>): Promise<T> {
    return spendingCall.run(this.credits, work);
  }

  get journal(): JobJournal {
    // Jobs on the in-process mock end with this process: nothing to resume later, so not on disk.
    this.#journal ??= new JobJournal(this.env, { memoryOnly: this.globals.mock });
    return this.#journal;
  }

  credentials(): ResolvedCredentials {
    return resolveCredentials({ baseUrl: this.globals.baseUrl }, this.env);
  }

  /**
   * A client for the configured service, or for an in-process bundled mock with --mock. Throws
   * MissingCredentialsError (exit 4) naming what to do when nothing usable is configured.
   */
  async client(need: CredentialNeed = 'any'): Promise<AssetgenClient> {
    if (this.globals.mock) {
      const mock = await this.mockService();
      return this.clientFor({ baseUrl: mock.url, apiKey: mock.apiKey, sessionCookie: mock.sessionCookie });
    }
    const creds = this.credentials();
    if (!creds.baseUrl) {
      throw new MissingCredentialsError('No service URL is configured.', `${anyOf(this.frontEnd.setBaseUrl)}.`);
    }
    if (need === 'session' && !creds.sessionCookie) {
      throw new MissingCredentialsError(
        'This needs a session cookie, and none is configured.',
        `Copy the session cookie from a signed-in browser (name=value), then pipe it to \`assetgen auth login --session\`, or set ${ENV.session}.`,
      );
    }
    if (!creds.apiKey && !creds.sessionCookie) {
      throw new MissingCredentialsError(
        'No credentials: neither an API key nor a session cookie is configured.',
        `Run \`assetgen auth login\` (or pipe a key to \`assetgen auth login --with-key\`), or set ${ENV.apiKey}.`,
      );
    }
    return this.clientFor({ baseUrl: creds.baseUrl.value, apiKey: creds.apiKey?.value, sessionCookie: creds.sessionCookie?.value });
  }

  /** A client for exactly these credentials (say, a key being verified before it is stored). */
  async clientFor(credentials: { baseUrl: string; apiKey?: string; sessionCookie?: string }): Promise<AssetgenClient> {
    // http.js comes with client.js: loaded on use, as the client is.
    const [{ createClient }, { isLoopback }] = await Promise.all([import('../client/client.js'), import('../client/http.js')]);
    let client: AssetgenClient;
    try {
      client = createClient({
        ...credentials,
        allowInsecureHttp: this.globals.allowInsecureHttp,
        // A command's calls are few, or a build's mix of calls and downloads: cheaper on node:http
        // alone than loading and warming up undici (docs/benchmarks.md, "The SDK's per-call overhead").
        connectionPool: 'off',
        ...this.#init.retryTiming,
        // Every answer's charge and balance, summed in one place for `credits` in --json.
        onCredits: (credits: Credits) => {
          this.credits.add(credits);
          const call = spendingCall.getStore();
          if (call !== this.credits) call?.add(credits);
        },
        ...(this.globals.verbose ? this.#traceHooks() : {}),
      });
    } catch (error) {
      throw plainHttpInOwnWords(error, credentials.baseUrl, this.frontEnd, isLoopback);
    }
    return this.#track(client);
  }

  /** Keep-alive sockets would hold the process open: close the client when the command ends. */
  #track(client: AssetgenClient): AssetgenClient {
    this.#shared.cleanups.push(() => client.close());
    return client;
  }

  /** The in-process bundled mock (--mock, demo): started once per command run, on loopback. */
  mockService(): Promise<MockService> {
    this.#shared.mock ??= (async () => {
      // The one way the kit reaches the mock: `--mock` starts it, loaded only then (the mock knows
      // nothing of the kit). Oxlint checks dynamic imports too, where ESLint looked at static ones.
      // oxlint-disable-next-line no-restricted-imports
      const { startMockServer } = await import('../mock/server.js');
      const mock = await startMockServer({});
      this.#shared.cleanups.push(() => mock.close());
      this.out.info(this.out.style.dim(`Using the bundled mock service at ${mock.url}.`));
      return mock;
    })();
    return this.#shared.mock;
  }

  async cleanup(): Promise<void> {
    for (const fn of this.#shared.cleanups.splice(0).reverse()) {
      await fn().catch(() => {});
    }
  }

  #traceHooks() {
    const write = (line: string) => this.io.stderr.write(`${this.out.style.dim(line)}\n`);
    return {
      onRequest: (info: { method: string; url: string; headers: Record<string, string>; attempt: number }) => {
        write(`→ ${info.method} ${redactUrl(info.url)}${info.attempt > 1 ? ` (attempt ${info.attempt})` : ''}`);
        for (const [name, value] of Object.entries(info.headers)) write(`  ${name}: ${value}`);
      },
      onResponse: (info: { method: string; url: string; status: number; requestId?: string; durationMs: number }) => {
        write(
          `← ${info.status} ${info.method} ${redactUrl(info.url)} ${info.durationMs}ms${info.requestId ? ` request-id=${info.requestId}` : ''}`,
        );
      },
      onRetry: (info: { attempt: number; delayMs: number; reason: string }) => {
        write(`↻ retry ${info.attempt} in ${info.delayMs}ms: ${info.reason}`);
      },
    };
  }
}
