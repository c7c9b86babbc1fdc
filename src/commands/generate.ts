// `assetgen generate <prompt> --agent <id>`: one image, saved to disk. With an API key it calls
// POST /api/v1/generate; with only a session, POST /api/ai/generate; with --stream, the SSE endpoint.
import type { AssetgenClient, Generation } from '../client/types.js';
import { ConnectionError } from '../client/errors.js';
import type { CommandContext } from '../cli/context.js';
import { UsageError } from '../cli/errors.js';
import { paidCall } from '../cli/idempotency.js';
import { asRecord } from '../cli/follow.js';
import { command } from '../cli/command.js';
import { renderSaved, savedResult } from '../cli/report.js';
import { checkOutputTarget, saveOutputs } from '../cli/save.js';
import { startProgress, type Progress } from '../ui/progress.js';

interface GenerateOptions {
  agent: string;
  output?: string;
  stream?: boolean;
  force?: boolean;
  idempotencyKey?: string;
}

export const generate = command({ run: generateImage, render: renderSaved });

async function generateImage(ctx: CommandContext, prompt: string, options: GenerateOptions) {
  if (!prompt.trim()) throw new UsageError('The prompt is empty.', `Describe the asset, e.g. ${ctx.frontEnd.generateExample}`);
  if (!options.agent.trim())
    throw new UsageError(`${ctx.frontEnd.option('agent')} needs an agent id (see ${ctx.frontEnd.lookup('agents')}).`);
  checkOutputTarget(ctx, options.output, Boolean(options.force), { kind: 'image' });
  const client = await ctx.client(options.stream ? 'session' : 'any');
  const progress = await startProgress(ctx.out, `Generating with ${ctx.out.server(options.agent)}…`);
  try {
    const request = { agentId: options.agent, prompt };
    const generation = await paidCall(ctx, options.idempotencyKey, (key) =>
      options.stream
        ? streamGeneration(ctx, client, request, progress, key.idempotencyKey)
        : client.generate(request, { signal: ctx.signal, ...key }),
    );
    progress.update('Downloading…');
    const saved = await saveOutputs(
      ctx,
      client,
      [
        {
          url: generation.assetUrl,
          stem: generation.id ?? 'asset',
          contentType: generation.contentType,
          fallbackExtension: '.png',
          bytes: generation.assetBytes,
        },
      ],
      options,
    );
    progress.stop();
    const record: Record<string, unknown> = { ...asRecord(generation.raw), assetUrl: generation.assetUrl };
    return savedResult(ctx, saved, record);
  } catch (error) {
    progress.stop();
    throw error;
  }
}

async function streamGeneration(
  ctx: CommandContext,
  client: AssetgenClient,
  request: { agentId: string; prompt: string },
  progress: Progress,
  idempotencyKey: string,
): Promise<Generation> {
  for await (const event of client.stream(request, { signal: ctx.signal, idempotencyKey })) {
    if (event.type === 'progress') {
      const pct = typeof event.progress === 'number' ? ` ${Math.round(event.progress * 100)}%` : '';
      progress.update(`${ctx.out.server(event.message ?? 'Working')}${pct}`);
    } else if (event.type === 'result') {
      return event.generation;
    }
  }
  throw new ConnectionError('The stream ended without a result.');
}
