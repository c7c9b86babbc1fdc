// generate_image and list_agents: the `generate` and `agents` commands, answered as tool results.
import fs from 'node:fs';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../sdk.js';
import { callCommand, type ServerScope } from '../call.js';
import { OUTPUT } from '../schemas.js';
import { decodeGifFirstFrame } from '../../ui/preview/gif.js';
import { downscale, sniff } from '../../ui/preview/image.js';
import { decodePng, encodePng } from '../../ui/preview/png.js';
import { defineTool } from '../tool.js';
import { readRegularFileSync } from '../../files/confine.js';
import { INLINE_IMAGE_LIMITS } from '../../imaging/limits.js';
import { idempotencyKey, overwrite, PAID, READ_ONLY, takeCount } from './common.js';
import { confirmCost } from '../consent.js';
import { MAX_TAKES } from '../../api/takes.cjs';

/** Images up to this size come back inline (base64); larger ones are only saved, with a note. */
export const IMAGE_INLINE_CAP = INLINE_IMAGE_LIMITS.maxBytes;

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

export function registerAssetTools(server: McpServer, scope: ServerScope): void {
  defineTool(server, scope, 'generate_image', {
    title: 'Generate an image',
    description: `Generates one image from a prompt with an image agent (see list_agents), saves it under the working directory and returns the saved path, the image, the generation id and the credits spent. Costs credits. With variants: N (2-${MAX_TAKES}) it makes N takes to choose from: N paid calls (N charges), confirmed by confirm_paid_calls: N (or by the person, if your client shows confirmations); each take is saved (a file output name-1.png … name-N.png) and returned with its path, size and credits, and shown in one contact sheet image, each take numbered.`,
    input: {
      prompt: z.string().describe('What to make, e.g. "rusty sword icon, 32x32 pixel art".'),
      agent: z.string().describe('Image agent id, e.g. sprite-artist (see list_agents).'),
      output: z
        .string()
        .optional()
        .describe(
          'File, or folder (trailing slash or existing) to save into, relative to the working directory; default: the working directory.',
        ),
      overwrite,
      idempotency_key: idempotencyKey,
      variants: takeCount(
        `Takes of the prompt to choose from (1-${MAX_TAKES}, default 1). Each take is its own paid call: N takes are N charges. Only when the user asked for options.`,
      ),
      confirm_paid_calls: z.number().int().optional().describe('Must equal variants (when over 1): confirms that many paid calls.'),
    },
    output: OUTPUT.generate_image,
    kind: PAID,
    paths: { output: 'file-or-folder' },
    async call(ctx, args, extra) {
      const takes = args.variants ?? 1;
      if (takes > 1)
        await confirmCost(server, extra, {
          argument: 'confirm_paid_calls',
          expected: takes,
          given: args.confirm_paid_calls,
          tool: 'generate_image',
          cost: `${takes} takes are ${takes} paid calls`,
          amount: `${takes} paid calls`,
          question: `${takes} takes are ${takes} paid calls (${takes} × the service's price of an image). Make them?`,
          title: `Make ${takes} paid calls`,
          notDone: 'no take was made',
        });
      const { generate } = await import('../../commands/generate.js');
      const generated = await callCommand(ctx, generate, args.prompt, {
        agent: args.agent,
        output: args.output,
        force: args.overwrite,
        idempotencyKey: args.idempotency_key,
        variants: takes,
        yes: true,
      });
      // Takes come back as one contact sheet, each numbered, within the inline image limit.
      if ('takes' in generated) {
        const { contactSheetOfFiles } = await import('../../pipeline/take-review.js');
        const sheet = await contactSheetOfFiles(generated.saved);
        return {
          result: generated,
          content: [
            { type: 'text' as const, text: `The ${generated.saved.length} takes, numbered as in takes[].k:` },
            { type: 'image' as const, data: sheet.toString('base64'), mimeType: 'image/png' },
          ],
        };
      }
      const file = generated.saved[0];
      return {
        result: { path: file, generationId: generated.id, ...generated, agentId: generated.agentId ?? args.agent },
        content: file ? imageContent(file) : [],
      };
    },
  });

  defineTool(server, scope, 'list_agents', {
    title: 'List agents',
    description:
      'Lists the agents that generate assets (id, kind image|video, name, description). Needs a session cookie; with only an API key it answers with the last list assetgen cached (`source: "cache"`, `listedAt`), or an error saying how to get one. Never guess an agent id.',
    input: {},
    output: OUTPUT.list_agents,
    kind: READ_ONLY,
    async call(ctx) {
      const { agents } = await import('../../commands/agents.js');
      return { result: await callCommand(ctx, agents) };
    },
  });
}

/** The saved image as MCP image content, or a note when it is too large to send inline. */
export function imageContent(file: string): ({ type: 'image'; data: string; mimeType: string } | { type: 'text'; text: string })[] {
  const mimeType = IMAGE_TYPES[path.extname(file).toLowerCase()];
  if (!mimeType) return [{ type: 'text', text: `Saved ${file} (not an image type that can be shown inline).` }];
  const size = fs.statSync(file).size;
  if (size <= IMAGE_INLINE_CAP) return [{ type: 'image', data: readRegularFileSync(file).toString('base64'), mimeType }];
  const smaller = downscaled(file);
  if (smaller) {
    return [
      { type: 'image', data: smaller.png.toString('base64'), mimeType: 'image/png' },
      { type: 'text', text: `Shown downscaled to ${smaller.width}×${smaller.height} (the saved file, ${file}, is ${size} bytes).` },
    ];
  }
  return [
    {
      type: 'text',
      text: `The image is ${size} bytes, over the ${IMAGE_INLINE_CAP}-byte inline cap, and could not be downscaled: open ${file} instead.`,
    },
  ];
}

/** Longest side of an image sent inline in place of a large one. */
export const INLINE_MAX_SIDE = INLINE_IMAGE_LIMITS.maxSide;

/** A PNG (or a GIF's first frame) shrunk to fit INLINE_MAX_SIDE, re-encoded as PNG; undefined when that fails or is still too large. */
function downscaled(file: string): { png: Buffer; width: number; height: number } | undefined {
  try {
    const bytes = readRegularFileSync(file);
    const pixels = sniff(bytes) === 'png' ? decodePng(bytes) : decodeGifFirstFrame(bytes);
    const small = downscale(pixels, INLINE_MAX_SIDE, INLINE_MAX_SIDE);
    const png = encodePng(small);
    return png.length <= IMAGE_INLINE_CAP ? { png, width: small.width, height: small.height } : undefined;
  } catch {
    return undefined; // not a PNG/GIF we can decode (JPEG, WebP, damaged): the note says so
  }
}
