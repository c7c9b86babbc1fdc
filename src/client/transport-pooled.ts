// Calls made side by side, through undici: its HTTP/1.1 client costs about half of node:http's
// per call (docs/benchmarks.md, "The SDK's per-call overhead"), which is what an SDK user with 16
// calls in flight pays for. Not a build: the CLI turns the pool off (connectionPool 'off'), its mix
// of calls and downloads runs cheaper on node:http alone (transport.ts). One undici `Client` per
// connection, pooled here rather than by undici's Agent, so each answer knows the socket it came on:
// bytes past an answer's announced end are refused exactly as node's transport refuses them (undici
// would drop them and use the answer).
// Loaded only once calls overlap (transport.ts): a one-shot command never pays undici's start-up.
import { Readable } from 'node:stream';
import type { Socket } from 'node:net';
import { buildConnector, Client, type Dispatcher } from 'undici';
import { abortedError, excessError } from './transport-errors.js';
import type { WireRequest, WireResponse } from './transport-records.js';

/** Where a request goes, split as undici's dispatch wants it. */
interface PooledTarget {
  origin: string;
  path: string;
}

/** One connection: its undici Client and the socket it has now (none before connecting). */
interface Connection {
  readonly origin: string;
  readonly client: Client;
  readonly socket: Socket | undefined;
}

export class ConnectionPool {
  readonly #idle = new Map<string, Connection[]>();
  readonly #all = new Set<Connection>();
  readonly #connect: buildConnector.connector;
  #closed = false;

  constructor(connectTimeoutMs: number) {
    this.#connect = buildConnector({ timeout: connectTimeoutMs });
  }

  /** An idle connection to `origin`, or a new one: one call at a time on each, like node's agent. */
  #take(origin: string): Connection {
    const idle = this.#idle.get(origin);
    const reused = idle?.pop();
    if (reused) return reused;
    let socket: Socket | undefined;
    const client = new Client(origin, {
      keepAliveTimeout: 30_000,
      pipelining: 1,
      connect: (options, callback) =>
        this.#connect(options, (...result) => {
          socket = result[1] ?? undefined;
          callback(...result);
        }),
    });
    const connection: Connection = {
      origin,
      client,
      get socket() {
        return socket;
      },
    };
    this.#all.add(connection);
    return connection;
  }

  /** Free for the next call (a Client whose socket is gone connects again). */
  release(connection: Connection): void {
    if (this.#closed) return;
    const idle = this.#idle.get(connection.origin);
    if (idle) idle.push(connection);
    else this.#idle.set(connection.origin, [connection]);
  }

  /** A connection left mid-connect (an abort before the request started): closed, not reused. */
  drop(connection: Connection): void {
    this.#all.delete(connection);
    void connection.client.destroy();
  }

  send(target: PooledTarget, wire: WireRequest): Promise<WireResponse> {
    if (this.#closed) return Promise.reject(new Error('The transport is closed.'));
    const connection = this.#take(target.origin);
    return new Promise((resolve, reject) => {
      connection.client.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: wire.method,
          headers: wire.headers,
          body: wire.body,
          headersTimeout: wire.headersTimeoutMs,
          bodyTimeout: wire.bodyTimeoutMs,
        },
        new Answer(this, connection, wire, resolve, reject),
      );
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#idle.clear();
    await Promise.all([...this.#all].map((connection) => connection.client.destroy()));
    this.#all.clear();
  }
}

/**
 * One call's answer: resolves with the status and headers, then streams the body (paused when the
 * reader is behind). Its connection goes back to the pool once the answer is whole and clean.
 * Made for every call of an SDK user's thousands: no closure or listener it does not need.
 */
class Answer implements Dispatcher.DispatchHandler {
  #body?: AnswerBody;
  #controller?: Dispatcher.DispatchController;
  #settled = false;
  /** Only with a signal to listen to. */
  readonly #onAbort?: () => void;

  constructor(
    readonly pool: ConnectionPool,
    readonly connection: Connection,
    readonly wire: WireRequest,
    readonly resolve: (response: WireResponse) => void,
    readonly reject: (error: Error) => void,
  ) {
    if (!wire.signal) return;
    /**
     * undici starts the request (onRequestStart) only once its socket is connected: an abort before
     * that ends the call at once and drops the half-made connection, as node's transport does.
     */
    this.#onAbort = (): void => {
      if (this.#controller) this.#controller.abort(abortedError());
      else if (!this.#settled) {
        this.#settled = true;
        this.#done();
        this.reject(abortedError());
        this.pool.drop(this.connection);
      }
    };
    wire.signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled || this.wire.signal?.aborted) controller.abort(abortedError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: WireResponse['headers']): void {
    const body = new AnswerBody(this, controller);
    this.#body = body;
    this.resolve({ status: statusCode, headers, body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.#body!.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.#settled = true;
    this.#done();
    // undici goes on parsing the bytes it read after this answer before it returns: anything past
    // the announced end has destroyed the socket with an error by the next microtask (a clean
    // `Connection: close` destroys it with UND_ERR_INFO, which is no refusal).
    queueMicrotask(this.#ended);
  }

  readonly #ended = (): void => {
    const body = this.#body!;
    const error = this.connection.socket?.errored as { code?: unknown } | null | undefined;
    if (error && error.code !== 'UND_ERR_INFO') body.destroy(excessError(this.wire));
    else {
      body.push(null);
      body.complete = true;
    }
    // Free for the next call either way: a Client whose socket is gone connects again.
    this.pool.release(this.connection);
  };

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#done();
    if (this.#body) this.#body.destroy(error);
    else this.reject(error);
    this.pool.release(this.connection);
  }

  /** The reader left before the answer's end (it has what it needs, or an error): the connection goes too. */
  bodyLeft(controller: Dispatcher.DispatchController, error: Error | null): void {
    if (!this.#settled) controller.abort(error ?? abortedError());
  }

  #done(): void {
    if (this.#onAbort) this.wire.signal?.removeEventListener('abort', this.#onAbort);
  }
}

/** An answer's body, read as the reader asks (undici paused while it is behind). */
class AnswerBody extends Readable {
  /**
   * Like node's IncomingMessage.complete: the answer is whole, its end pushed. A reader may then
   * take what is buffered in one read (limits.ts does, for a JSON answer).
   */
  complete = false;

  constructor(
    readonly answer: Answer,
    readonly controller: Dispatcher.DispatchController,
  ) {
    super();
    // Its errors are for whoever reads it, and they see them (its `errored`, their own listener):
    // one that comes before the reader listens (bytes past the end, found a microtask after the
    // answer) or after it left must not be an uncaught 'error' event, which ends the process.
    this.on('error', ignore);
  }

  override _read(): void {
    this.controller.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.answer.bodyLeft(this.controller, error);
    callback(error);
  }
}

function ignore(): void {}
