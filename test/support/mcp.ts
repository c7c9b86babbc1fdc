// `assetgen mcp` driven the way an MCP client drives it: the SDK's client, over stdio to the real
// binary (node bin/assetgen.js mcp …) with a temp HOME and working directory — or, by default, to the
// same command table run in this process (runInProcess), its stdin and stdout joined to the client
// with the stdio transport's own framing. A test of what only a process has (the wire, exit codes,
// an installed package) asks for the process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ClientCapabilities, JSONRPCMessage, Progress } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { BIN, runInProcess, tempHome, type CliResult } from './cli.js';
import { startServer, type Handler, type TestServer } from './http.js';
import { startMock, type MockHandle } from './mock.js';

type TempHome = ReturnType<typeof tempHome>;

export interface McpSession {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** Calls a tool; resolves with the result and the progress notifications it got. */
  call(name: string, args?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export interface ToolOutcome {
  result: CallToolResult;
  /** The first text content parsed as JSON (the document, or {error}). */
  json: Record<string, any>;
  progress: Progress[];
}

export async function startMcp(options: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  args?: string[];
  capabilities?: ClientCapabilities;
  setup?: (client: Client) => void;
  /** Spawn the server as a process: the script to start (this checkout's bin/assetgen.js with
   * `true`; the slow pack test: the installed one). Default: in this process. */
  process?: true | string;
}): Promise<McpSession> {
  let stderr = '';
  const args = ['mcp', ...(options.args ?? [])];
  let transport: Transport;
  if (options.process) {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [options.process === true ? BIN : options.process, ...args],
      env: options.env as Record<string, string>,
      cwd: options.cwd,
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    transport = stdio;
  } else {
    transport = new InProcessServer(args, options, (text) => (stderr += text));
  }
  const client = new Client(
    { name: 'assetgen-test', version: '1.0.0' },
    { capabilities: options.capabilities ?? {}, jsonSchemaValidator: SHARED_VALIDATORS },
  );
  options.setup?.(client);
  await client.connect(transport);
  // Progress is read off the wire, not through `onprogress`: the SDK's client hands a notification to
  // its handler a microtask late but settles a response at once, so a last notification that arrives
  // in the same chunk as the result (likelier on a loaded machine) finds its handler gone and is
  // dropped. Each call's notifications are kept under its progressToken, which the SDK sets to the
  // request's id as it sends it (synchronously, inside callTool).
  const progressByToken = new Map<unknown, Progress[]>();
  let sentToken: unknown;
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && message.method === 'notifications/progress' && message.params) {
      const { progressToken, ...update } = message.params;
      progressByToken.get(progressToken)?.push(update as Progress);
    }
    deliver?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage) => {
    if ('method' in message && message.method === 'tools/call') sentToken = message.params?._meta?.progressToken;
    return send(message);
  };
  return {
    client,
    stderr: () => stderr,
    async call(name, args = {}, callOptions = {}) {
      const progress: Progress[] = [];
      sentToken = undefined;
      const pending = client.callTool({ name, arguments: args }, undefined, {
        onprogress: () => {},
        timeout: callOptions.timeoutMs ?? 20_000,
      });
      const token = sentToken;
      if (token !== undefined) progressByToken.set(token, progress);
      const result = (await pending.finally(() => progressByToken.delete(token))) as CallToolResult;
      const first = result.content.find((item) => item.type === 'text');
      const json = first && first.type === 'text' ? parse(first.text) : {};
      return { result, json, progress };
    },
    close: () => client.close(),
  };
}

/**
 * The server end of a client's transport: `assetgen mcp` run by runInProcess, messages framed as
 * on stdio (one JSON line each, the SDK's own serializer and reader). Closing ends the server's
 * stdin, as a client closing the pipe does, and waits for the command to return.
 */
class InProcessServer implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly toServer = new PassThrough();
  private readonly lines = new ReadBuffer();
  private run: Promise<CliResult> | undefined;

  constructor(
    private readonly args: string[],
    private readonly options: { env: NodeJS.ProcessEnv; cwd: string },
    private readonly onStderr: (text: string) => void,
  ) {}

  start(): Promise<void> {
    this.run = runInProcess(this.args, {
      env: this.options.env,
      cwd: this.options.cwd,
      stdin: this.toServer,
      onStdout: (text) => this.receive(text),
      onStderr: this.onStderr,
    });
    this.run.then(
      () => this.onclose?.(),
      (error: Error) => this.onerror?.(error),
    );
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.toServer.end();
    await this.run;
  }

  private receive(text: string): void {
    this.lines.append(Buffer.from(text, 'utf8'));
    for (let message = this.lines.readMessage(); message; message = this.lines.readMessage()) this.onmessage?.(message);
  }
}

/**
 * One compiled validator per output schema for every client in this worker: the SDK's client
 * compiles each tool's schema anew for each client it makes (about a second of a worker's CPU
 * over the suite). The checks are the SDK's own (its ajv provider).
 */
const SHARED_VALIDATORS: jsonSchemaValidator = (() => {
  const ajv = new AjvJsonSchemaValidator();
  const compiled = new Map<string, JsonSchemaValidator<unknown>>();
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      const key = JSON.stringify(schema);
      let validator = compiled.get(key);
      if (!validator) compiled.set(key, (validator = ajv.getValidator(schema)));
      return validator as JsonSchemaValidator<T>;
    },
  };
})();

/** Our results are JSON; the SDK's own errors (a schema mismatch) are plain text: `{text}`. */
function parse(text: string): Record<string, any> {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return { text };
  }
}

/**
 * `assetgen mcp` in a temp project holding `manifest`, against a mock of its own (the key and the
 * URL in the server's environment): started before the file's tests, closed after them.
 */
export function useMcpProject(
  manifest: string,
  credits = 1000,
): { readonly mock: MockHandle; readonly home: TempHome; readonly mcp: McpSession } {
  let started: { mock: MockHandle; home: TempHome; mcp: McpSession } | undefined;
  beforeAll(async () => {
    const mock = await startMock({ credits });
    const home = tempHome();
    fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), manifest);
    const mcp = await startMcp({ env: { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey }, cwd: home.cwd });
    started = { mock, home, mcp };
  });
  afterAll(async () => {
    await started?.mcp.close();
    await started?.mock.close();
    started?.home.remove();
  });
  const get = () => {
    if (!started) throw new Error('the MCP project starts in beforeAll: use it inside a hook or a test');
    return started;
  };
  return {
    get mock() {
      return get().mock;
    },
    get home() {
      return get().home;
    },
    get mcp() {
      return get().mcp;
    },
  };
}

/**
 * `assetgen mcp` in a temp home against a service of the test's own (`handler`, on loopback):
 * `start` within a test; the session, the service and the home are closed after each test.
 */
export function useMcpAgainst(): { start(handler: Handler, env: NodeJS.ProcessEnv): Promise<McpSession> } {
  let started: { mcp?: McpSession; server: TestServer; home: TempHome } | undefined;
  afterEach(async () => {
    await started?.mcp?.close();
    await started?.server.close();
    started?.home.remove();
    started = undefined;
  });
  return {
    async start(handler, env) {
      started = { server: await startServer(handler), home: tempHome() };
      const { server, home } = started;
      started.mcp = await startMcp({ env: { ...home.env, ASSETGEN_BASE_URL: server.url, ...env }, cwd: home.cwd });
      return started.mcp;
    },
  };
}
