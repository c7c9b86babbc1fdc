// `assetgen mcp`: an MCP server on stdio (the official SDK). Every tool is a thin adapter over the
// same commands, kit and client as the CLI: one context per call (see call.ts), derived from the
// command's own context, so credentials, --base-url and --mock resolve exactly as for any command.
// Stdout carries protocol messages only; logs go to stderr.
import { warningLine } from '../ui/labels.cjs';
import type { Readable, Writable } from 'node:stream';
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import type { CommandContext } from '../cli/context.js';
import type { ServerScope } from './call.js';
import { packageVersion } from '../package-info.cjs';
import { LineLimit, MCP_MESSAGE_LIMIT_BYTES } from './line-limit.js';
import { ErrorCode, McpServer, StdioServerTransport } from './sdk.js';
import { registerAssetTools } from './tools/assets.js';
import { registerBuildTools } from './tools/build.js';
import { registerJobTools } from './tools/jobs.js';
import { registerVideoTools } from './tools/video.js';
import { registerTakeTools } from './tools/takes.js';
import { registerWorkflowTools } from './tools/workflows.js';

const MCP_MESSAGE_LIMIT_MIB = MCP_MESSAGE_LIMIT_BYTES / 2 ** 20;

export interface ServeOptions {
  allowOutside: boolean;
}

const INSTRUCTIONS = `assetgen makes game assets (images, videos) with an AI generation service, paid in credits, and saves them under the working directory.
generate_image for one image; list_workflows then run_workflow for multi-node workflows; create_video costs ${VIDEO_JOB_COST} credits and needs confirm_credits: ${VIDEO_JOB_COST}.
Options of one image: generate_image variants or build more make takes (a paid call each); list_takes shows them numbered; pick_variant chooses one, free.
Waiting tools answer with the job id and a resume hint instead of blocking too long; list_jobs shows unfinished paid work.`;

export function createServer(scope: ServerScope, version: string): McpServer {
  const server = new McpServer(
    { name: 'assetgen', title: 'assetgen', version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  registerAssetTools(server, scope);
  registerWorkflowTools(server, scope);
  registerVideoTools(server, scope);
  registerJobTools(server, scope);
  registerBuildTools(server, scope);
  registerTakeTools(server, scope);
  return server;
}

/** Serves until the client closes stdin (or Ctrl-C); calls in flight are aborted then. */
export async function serve(ctx: CommandContext, options: ServeOptions): Promise<void> {
  // Started before any call, so one mock serves (and outlives) every call.
  if (ctx.globals.mock) await ctx.mockService();
  const closing = new AbortController();
  const server = createServer({ ctx, allowOutside: options.allowOutside, closing: closing.signal }, packageVersion());
  // Messages reach the transport through a bound (line-limit.ts); its own cap is then never reached.
  const input = new LineLimit({
    onOversize: () =>
      // Said even with --quiet (an MCP server's stderr is its only log), labelled as every warning is.
      ctx.out.error(
        warningLine(`assetgen mcp refused a message longer than ${MCP_MESSAGE_LIMIT_MIB} MiB (skipping it; still serving).`, ctx.out.style),
      ),
    onSkipped: (bytes, id) => {
      if (id === undefined) return;
      const message = `The message is ${bytes} bytes; assetgen mcp reads at most ${MCP_MESSAGE_LIMIT_MIB} MiB per message.`;
      transport.send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message } }).catch(() => {});
    },
  });
  (ctx.io.stdin as Readable).pipe(input);
  const transport = new StdioServerTransport(input, ctx.io.stdout as Writable, { maxBufferSize: 2 * MCP_MESSAGE_LIMIT_BYTES });
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const close = (): void => {
    closing.abort();
    void server.close();
  };
  ctx.io.stdin.once('end', close);
  ctx.io.stdin.once('close', close);
  ctx.signal.addEventListener('abort', close, { once: true });
  await server.connect(transport);
  ctx.out.info(
    `assetgen MCP server ${packageVersion()} on stdio (working directory ${ctx.cwd}${options.allowOutside ? ', --allow-outside' : ''}).`,
  );
  await closed;
  ctx.signal.removeEventListener('abort', close);
}
