// `assetgen generate <prompt> --agent <id>`: one image, saved to disk. With an API key it calls
// POST /api/v1/generate; with only a session, POST /api/ai/generate; with --stream, the SSE endpoint.
// `--variants N` makes N takes of the prompt to choose from: N paid calls, keys derived from one
// (src/cli/takes.ts), the count confirmed before the first.
import { randomUUID } from 'node:crypto';
import type { AssetgenClient, Generation } from '../client/types.js';
import { ConnectionError, withHint } from '../client/errors.js';
import { redactUrl } from '../client/redact.js';
import type { CommandContext } from '../cli/context.js';
import { UsageError } from '../cli/errors.js';
import { effectiveError } from '../cli/execute.js';
import { checkIdempotencyKey, paidButNotSaved, paidCall, settleSubmission } from '../cli/idempotency.js';
import { asRecord } from '../cli/follow.js';
import { command } from '../cli/command.js';
import { renderSaved, savedResult } from '../cli/report.js';
import { absoluteOutput, shellQuote, withPositional } from '../cli/resume.js';
import { checkOutputTarget, displayPath, saveOutputs, type SavedFile } from '../cli/save.js';
import { attachTakes, checkTakesKey, confirmTakes, MAX_TAKES, takeKey, takeOutput, type SavedTake } from '../cli/takes.js';
import { startProgress, type Progress } from '../ui/progress.js';

export interface GenerateOptions {
  agent: string;
  output?: string;
  stream?: boolean;
  force?: boolean;
  idempotencyKey?: string;
  /** How many takes (separate paid calls) of the prompt: 1 to MAX_TAKES, default 1. */
  variants?: number;
  /** Confirms the paid calls of more than one take (asked on a terminal otherwise). */
  yes?: boolean;
}

export const generate = command({ run: generateImage, render: renderSaved });

async function generateImage(ctx: CommandContext, prompt: string, options: GenerateOptions) {
  if (!prompt.trim()) throw new UsageError('The prompt is empty.', `Describe the asset, e.g. ${ctx.frontEnd.generateExample}`);
  if (!options.agent.trim())
    throw new UsageError(`${ctx.frontEnd.option('agent')} needs an agent id (see ${ctx.frontEnd.lookup('agents')}).`);
  const takes = options.variants ?? 1;
  if (!Number.isInteger(takes) || takes < 1 || takes > MAX_TAKES) throw new UsageError(`Takes: use a whole number from 1 to ${MAX_TAKES}.`);
  if (takes > 1) return generateTakes(ctx, prompt, options, takes);
  checkOutputTarget(ctx, options.output, Boolean(options.force), { kind: 'image' });
  const client = await ctx.client(options.stream ? 'session' : 'any');
  const progress = await startProgress(ctx.out, `Generating with ${ctx.out.server(options.agent)}…`);
  let sentKey = '';
  try {
    const generation = await paidCall(
      ctx,
      options.idempotencyKey,
      (key) => {
        sentKey = key.idempotencyKey;
        return callOnce(ctx, client, prompt, options, progress, key);
      },
      undefined,
      undefined,
      // The same request again, with the same key: the image the first one paid for, not a second charge.
      {
        kind: 'image',
        baseUrl: client.baseUrl,
        label: prompt,
        // Run from anywhere later (`assetgen jobs`): the output as an absolute path.
        resubmit: (key) => generateWords(ctx, prompt, { ...options, output: absoluteOutput(options.output, ctx.cwd) }, key),
        settledByCaller: true,
      },
    );
    progress.update('Downloading…');
    let saved: string[];
    try {
      saved = await saveOutputs(ctx, client, [outputOf(generation)], options);
    } catch (error) {
      throw paidButNotSaved(ctx, effectiveError(error, ctx.signal), sentKey);
    }
    settleSubmission(ctx, 'image', client.baseUrl, sentKey);
    progress.stop();
    const record: Record<string, unknown> = { ...asRecord(generation.raw), assetUrl: generation.assetUrl };
    return savedResult(ctx, saved, record);
  } catch (error) {
    progress.stop();
    throw error;
  }
}

/**
 * N takes, one paid call each, in order. Every key derives from one (the user's, or a fresh one),
 * so the same command run again replays the takes paid for and pays only for the rest. A failure
 * at take k reports the takes saved before it and the command that makes the rest.
 */
async function generateTakes(ctx: CommandContext, prompt: string, options: GenerateOptions, takes: number) {
  if (options.output === '-')
    throw new UsageError(
      `-o - (stdout) takes one file; ${takes} takes are ${takes} files.`,
      `Give a folder, or a file name: ${ctx.frontEnd.option('output', 'sword.png')} saves sword-1.png … sword-${takes}.png.`,
    );
  checkIdempotencyKey(ctx, options.idempotencyKey);
  const keyBase = options.idempotencyKey ?? randomUUID();
  checkTakesKey(ctx, keyBase, takes);
  const force = Boolean(options.force);
  const outputs = Array.from({ length: takes }, (_, i) => takeOutput(ctx, options.output, i + 1));
  for (const output of new Set(outputs)) checkOutputTarget(ctx, output, force, { kind: 'image' });
  await confirmTakes(ctx, takes, options.yes === true);

  const client = await ctx.client(options.stream ? 'session' : 'any');
  const made: SavedTake[] = [];
  const again = { ...options, variants: takes, force: true, yes: true };
  const resume = ['assetgen', ...generateWords(ctx, prompt, again, keyBase)].map(shellQuote).join(' ');
  // The journal's copy runs from anywhere later (`assetgen jobs`): the output as an absolute path.
  const resumeWords = generateWords(ctx, prompt, { ...again, output: absoluteOutput(options.output, ctx.cwd) }, keyBase);
  for (let k = 1; k <= takes; k++) {
    const progress = await startProgress(ctx.out, `Take ${k} of ${takes}: generating with ${ctx.out.server(options.agent)}…`);
    try {
      const generation = await paidCall(
        ctx,
        takeKey(keyBase, k),
        (key) => callOnce(ctx, client, prompt, options, progress, key),
        options.idempotencyKey === undefined,
        { key: keyBase, how: `Make the rest as below` },
        // Every take's submission resumes as the whole command: the takes paid for replay, free.
        { kind: 'image', baseUrl: client.baseUrl, label: prompt, resubmit: () => resumeWords, settledByCaller: true },
      );
      progress.update(`Take ${k} of ${takes}: downloading…`);
      let file: SavedFile | undefined;
      await saveOutputs(ctx, client, [outputOf(generation)], { output: outputs[k - 1], force, onSaved: (saved) => (file = saved) });
      if (!file) throw new Error(`take ${k} was saved without its hash`);
      settleSubmission(ctx, 'image', client.baseUrl, takeKey(keyBase, k));
      made.push({
        k,
        path: file.path,
        size: file.size,
        sha256: file.sha256,
        credits: generation.credits.charged ?? null,
        id: generation.id ?? null,
      });
    } catch (error) {
      throw unfinished(ctx, effectiveError(error, ctx.signal), made, resume, keyBase);
    } finally {
      progress.stop();
    }
  }
  return savedResult(
    ctx,
    made.map((take) => take.path),
    { agentId: options.agent, prompt, variants: takes, idempotencyKey: keyBase, takes: made },
  );
}

/** One paid call of the prompt: streamed (--stream) or not. */
function callOnce(
  ctx: CommandContext,
  client: AssetgenClient,
  prompt: string,
  options: GenerateOptions,
  progress: Progress,
  key: { idempotencyKey: string; keyIsNew: boolean },
): Promise<Generation> {
  const request = { agentId: options.agent, prompt };
  return options.stream ? streamGeneration(ctx, client, request, progress, key) : client.generate(request, { signal: ctx.signal, ...key });
}

const outputOf = (generation: Generation) => ({
  url: generation.assetUrl,
  stem: generation.id ?? 'asset',
  contentType: generation.contentType,
  fallbackExtension: '.png',
  bytes: generation.assetBytes,
});

/** The failure of take k: the takes saved before it and how to make the rest, for people (hint) and --json (`takes`, `resume`). */
function unfinished(ctx: CommandContext, error: unknown, made: SavedTake[], command: string, key: string): unknown {
  const resume = ctx.frontEnd.resumeTakes({ command, key });
  const saved = made.length
    ? `Saved before it: ${made.map((take) => `take ${take.k} ${displayPath(ctx, take.path)} (${take.credits ?? '?'} credits)`).join(', ')}.`
    : 'No take was saved.';
  withHint(
    error,
    `${saved}\nMake the rest with the same keys (the takes already paid for replay, free, if the service honours Idempotency-Key): ${resume}`,
  );
  return attachTakes(error, { takes: made, resume });
}

/**
 * The words of a `generate` that sends the same request(s) again with `key`: those paid for replay
 * (if the service honours Idempotency-Key), the rest are made. For takes, `key` is the base the
 * takes' keys derive from; the takes saved are overwritten by the same bytes, and their count was
 * confirmed (`--force --yes`, set by the caller).
 */
function generateWords(ctx: CommandContext, prompt: string, options: GenerateOptions, key: string): string[] {
  const takes = options.variants ?? 1;
  return withPositional(['generate'], prompt, [
    '--agent',
    options.agent,
    ...(takes > 1 ? ['--variants', String(takes)] : []),
    '--idempotency-key',
    key,
    ...(options.output !== undefined ? ['-o', options.output] : []),
    ...(options.stream ? ['--stream'] : []),
    ...(options.force ? ['--force'] : []),
    ...(options.yes && takes > 1 ? ['--yes'] : []),
    ...(ctx.globals.baseUrl !== undefined ? ['--base-url', redactUrl(ctx.globals.baseUrl)] : []),
  ]);
}

async function streamGeneration(
  ctx: CommandContext,
  client: AssetgenClient,
  request: { agentId: string; prompt: string },
  progress: Progress,
  key: { idempotencyKey: string; keyIsNew: boolean },
): Promise<Generation> {
  for await (const event of client.stream(request, { signal: ctx.signal, ...key })) {
    if (event.type === 'progress') {
      const pct = typeof event.progress === 'number' ? ` ${Math.round(event.progress * 100)}%` : '';
      progress.update(`${ctx.out.server(event.message ?? 'Working')}${pct}`);
    } else if (event.type === 'result') {
      return event.generation;
    }
  }
  throw new ConnectionError('The stream ended without a result.');
}
