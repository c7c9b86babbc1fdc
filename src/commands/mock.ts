// `assetgen mock`: the bundled mock service on a socket, until Ctrl-C or SIGTERM.
import { UsageError } from '../cli/errors.js';
import type { CommandContext } from '../cli/context.js';

interface MockOptions {
  /** Parsed and range-checked by the command table. */
  port: number;
  host: string;
  credits?: number;
  seed?: string;
}

export async function mock(ctx: CommandContext, options: MockOptions): Promise<void> {
  const { port, credits } = options;
  const { startMockServer } = await import('../mock/server.js');
  let server;
  try {
    server = await startMockServer({ port, host: options.host, credits, seed: options.seed });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`Port ${port} is in use on ${options.host}.`, 'Pick another --port, or --port 0 for a free one.');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`Cannot listen on host "${options.host}".`);
    throw error;
  }
  if (ctx.out.json) {
    // Exactly one line, so a script can read it before the server stops.
    ctx.io.stdout.write(`${JSON.stringify({ url: server.url, apiKey: server.apiKey, sessionCookie: server.sessionCookie })}\n`);
  } else {
    // Shell lines to paste into another terminal; the key is the mock's own, not a secret.
    ctx.out.result(`export ASSETGEN_BASE_URL='${server.url}'`);
    ctx.out.result(`export ASSETGEN_API_KEY='${server.apiKey}'`);
    ctx.out.result(`export ASSETGEN_SESSION='${server.sessionCookie}'`);
    ctx.out.info(`Mock service listening on ${server.url} (admin API under ${server.url}/__mock/). Ctrl-C stops it.`);
  }
  // Serve until Ctrl-C/SIGTERM aborts the command's signal.
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  ctx.out.info('Mock service stopped.');
}
